from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memadmin.memories"
    verbose_name = "Memories (content blocks)"

    def ready(self) -> None:
        from . import (
            bulk_index,
            checks,  # noqa: F401  (registers the system check)
            sizes,
        )

        sizes.connect()
        bulk_index.connect()
