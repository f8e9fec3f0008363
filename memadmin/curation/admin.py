"""Curation's models in Django's admin, read only: they are derived data, recomputed, not edited.

Every model of the app is listed, so a model added later is visible here at once.
"""

from django.apps import apps
from django.contrib import admin

from memadmin.web.service_admin import ReadOnlyAdmin

for model in apps.get_app_config("curation").get_models():
    if not admin.site.is_registered(model):
        admin.site.register(model, ReadOnlyAdmin)
