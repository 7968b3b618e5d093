"""Reasoning that readers keep as a message's field (model/reasoning.py): writers of a
format with a place for reasoning put it there; the others say they leave it out."""

from __future__ import annotations

from ..model.reasoning import FIELDS, field_reasoning, has_reasoning_blocks

__all__ = ["FIELDS", "LEFT_OUT", "field_reasoning", "has_reasoning_blocks"]

LEFT_OUT = "reasoning kept in a field (reasoning_content, reasoning)"
