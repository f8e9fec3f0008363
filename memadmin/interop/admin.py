"""This area's models in Django's admin, read only: no service of this area writes from the admin.

Every model of the app is listed, so a model added later is visible here at once; give it a
ServiceAdmin (memadmin.web.service_admin) when a service should write it from the admin.
"""

from django.apps import apps
from django.contrib import admin
from django_tasks_db.models import DBTaskResult

from memadmin.web.service_admin import ReadOnlyAdmin

for model in apps.get_app_config("interop").get_models():
    # Versions kept by django-simple-history are read on the history pages instead.
    if not model.__name__.startswith("Historical") and not admin.site.is_registered(model):
        admin.site.register(model, ReadOnlyAdmin)

# The background worker's queue (django-tasks-db) registers its own admin; here it is read
# only like the rest: only the worker writes its rows.
if admin.site.is_registered(DBTaskResult):
    admin.site.unregister(DBTaskResult)
admin.site.register(DBTaskResult, ReadOnlyAdmin)
