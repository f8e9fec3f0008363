from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memadmin.memories"
    verbose_name = "Memories (content blocks)"

    def ready(self) -> None:
        from memadmin.taxonomy import memory_hooks

        from . import (
            bulk_index,
            checks,  # noqa: F401  (registers the system check)
            sizes,
            taxonomy_side,
        )

        sizes.connect()
        bulk_index.connect()
        memory_hooks.register(taxonomy_side.TaxonomySide())
