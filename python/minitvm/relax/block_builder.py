"""(being written)"""
class BlockBuilder:  # placeholder until block_builder.py lands
    pass
