"""Projects in Django's admin, written through the project services."""

from django import forms
from django.contrib import admin

from memadmin.web.service_admin import ServiceAdmin

from .models import Project
from .services import project_create, project_set_budget


class ProjectForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = ("identity", "name", "injection_budget")


@admin.register(Project)
class ProjectAdmin(ServiceAdmin):
    form = ProjectForm
    list_display = ("name", "identity", "pack", "injection_budget")
    search_fields = ("name", "identity")

    def get_readonly_fields(self, request, obj=None):
        # Only the budget has a service once the project exists; the pack changes by upgrade.
        return ("identity", "name", "pack") if obj is not None else ()

    def service_save(self, request, instance, data, change):
        if instance is None:
            return project_create(
                identity=data["identity"],
                name=data["name"],
                budget=data["injection_budget"],
                actor=request.user,
            )
        return project_set_budget(
            project=instance, budget=data["injection_budget"], actor=request.user
        )
