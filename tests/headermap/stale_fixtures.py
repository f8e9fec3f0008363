"""A header with two details, made at known times, for the stale-header tests.

Plain functions, so each test module wraps them in its own fixtures.
"""

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create, memory_update

T0 = 1_700_000_000_000  # in the past, so a sync "now" is later than every change here


def make_release(project) -> dict:
    """Make a sequence "Release" headed by a header over two steps, all at T0: in sync."""

    def make(content, **fields):
        return memory_create(
            project=project,
            category="OPS_RULES",
            content=content,
            actor="agent",
            at_ms=T0,
            **fields,
        )

    header = make("Release: build, then tag.", importance=90)
    build = make("Build with make release.")
    tag = make("Tag with git tag vX.")
    composite_create(
        head=header,
        type="sequence",
        members=[build, tag],
        title="Release",
        actor="agent",
        at_ms=T0,
    )
    return {"header": header, "build": build, "tag": tag}


def edit_build(release: dict) -> dict:
    """Have the historian edit the build step's text a minute after the header was made."""
    release["build"] = memory_update(
        memory=release["build"],
        content="Build with make release-all.",
        actor="historian",
        reason="the target was renamed",
        at_ms=T0 + 60_000,
    )
    return release
