"""The :class:`ScheduleError` subclasses, one per rule a schedule primitive checks.

C++ raises errors of kind ``"ScheduleError.<Rule>"``; :mod:`minitvm.error` turns each kind
into a class ``<Rule>`` deriving from :class:`minitvm.error.ScheduleError`. The classes are
created here up front so that they can be named in ``except`` clauses before any error has
happened::

    try:
        sch.reorder(i, k)
    except tvm.tir.schedule.LoopsNotAChainError as err:
        print(err)
"""
from ... import error as _error

#: The rules checked by the primitives (see docs/stage3_schedule.md).
RULES = [
    "AmbiguousBlockNameError",
    "BlockNotFoundError",
    "BodyAnalysisError",
    "CachePositionError",
    "DependentLoopError",
    "FactorAxisOutOfRangeError",
    "HasAnnotationOrThreadBindingError",
    "IndexMapArityError",
    "IndexOutOfRangeError",
    "InitNotIdentityError",
    "InsertionPositionError",
    "LoopHeightError",
    "LoopMultiAppearanceError",
    "LoopNotStartWithZeroError",
    "LoopPositionError",
    "LoopPropertyError",
    "LoopsNotAChainError",
    "NoMatchedReducerError",
    "NonPositiveFactorError",
    "NotAffineBindingError",
    "NotAllConsumersUnderLoopError",
    "NotAllProducersUnderLoopError",
    "NotAllocatedBufferError",
    "NotCompactDataFlowError",
    "NotCompleteBlockError",
    "NotCompleteOrReductionBlockError",
    "NotInjectiveConsumerError",
    "NotInjectiveIndexMapError",
    "NotOnlyChildError",
    "NotReadWriteError",
    "NotReductionBlockError",
    "NotSerialLoopKindError",
    "NotSingleChildBlockError",
    "NotSingleWriteBlock",
    "NotStagePipelineError",
    "OutputBlockError",
    "ProducerConsumerError",
    "RFactorNotApplicableError",
    "ReductionPatternError",
    "StorageAlignInvalidError",
    "SubspaceNotDivisibleError",
    "TensorizeComparisonError",
    "TransformationPaddingError",
    "TransformationPaddingIndexMapError",
    "WrongBlockIterTypeError",
    "WrongFactorError",
    "WrongFactorProductError",
]

ScheduleError = _error.ScheduleError


@_error.register_error("ScheduleError.IndexOutOfRangeError")
class IndexOutOfRangeError(_error.ScheduleError, _error.IndexError):
    """A buffer index is out of range (cache_read, set_scope, transform_layout, ...): a
    ScheduleError that is also an IndexError."""


for _rule in RULES:
    globals()[_rule] = _error.get_error_class("ScheduleError." + _rule)

__all__ = list(RULES)
