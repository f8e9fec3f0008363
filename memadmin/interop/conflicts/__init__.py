"""Sync conflicts of memories: a memory both sides changed since their base, and resolving it.

Composite conflicts live with the composites (`..composites.conflicts`).
"""
