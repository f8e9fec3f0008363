from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "memadmin.accounts"
    verbose_name = "People and roles"
