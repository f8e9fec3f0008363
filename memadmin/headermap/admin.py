"""This area's models in Django's admin, read only: no service of this area writes from the admin.

Every model of the app is listed, so a model added later is visible here at once; give it a
ServiceAdmin (memadmin.web.service_admin) when a service should write it from the admin.
"""

from django.apps import apps
from django.contrib import admin

from memadmin.web.service_admin import ReadOnlyAdmin

for model in apps.get_app_config("headermap").get_models():
    # Versions kept by django-simple-history are read on the history pages instead.
    if not model.__name__.startswith("Historical") and not admin.site.is_registered(model):
        admin.site.register(model, ReadOnlyAdmin)
