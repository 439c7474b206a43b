"""``relax.frontend.torch`` (stage 4): import a PyTorch model traced by ``torch.fx``
(:func:`from_fx`). PyTorch is imported only when :func:`from_fx` runs."""
from .fx_translator import from_fx  # noqa: F401
