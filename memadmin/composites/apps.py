from django.apps import AppConfig


class CompositesConfig(AppConfig):
    name = "memadmin.composites"
    verbose_name = "Composites (relation blocks)"

    def ready(self) -> None:
        from memadmin.memories import relation_hooks

        from .relations import CompositeRelations

        relation_hooks.register(CompositeRelations)
