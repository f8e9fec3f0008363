"""This area's models in Django's admin, read only: the background worker writes the runs."""

from django.apps import apps
from django.contrib import admin

from memadmin.web.service_admin import ReadOnlyAdmin

for model in apps.get_app_config("structure").get_models():
    if not admin.site.is_registered(model):
        admin.site.register(model, ReadOnlyAdmin)
