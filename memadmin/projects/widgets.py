"""The project picker every form uses: a project by its name, its identity on hover."""

from django import forms


class ProjectSelect(forms.Select):
    """A select of projects whose options carry each project's identity as their title."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        project = getattr(value, "instance", None)
        if project is not None:
            option["attrs"]["title"] = project.identity
        return option
