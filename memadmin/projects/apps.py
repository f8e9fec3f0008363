from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    """Projects of the store: the model every area points at, below all of them."""

    name = "memadmin.projects"
    verbose_name = "Projects"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the system check)
