"""Inline SVG pictures rendered on the server: composite diagrams and the budget bar.

Every piece of text in them is escaped here; templates insert the result as it is.
"""

from memadmin.core.diagrams.budget import budget_bar_svg
from memadmin.core.diagrams.composite import CompositeKind, composite_svg
from memadmin.core.diagrams.render import Size
from memadmin.core.diagrams.scene import Node

__all__ = ["CompositeKind", "Node", "Size", "budget_bar_svg", "composite_svg"]
