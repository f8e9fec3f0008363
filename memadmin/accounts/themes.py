"""The colour theme a person chose for this browser: the system's, light or dark.

Kept in a cookie, not in the database: it is a choice of this browser (a phone may follow
its system while a desktop stays dark), and the login page can follow it too. The server
writes it into `<html data-theme=...>`, so the first paint is already in the right theme.
"""

from django.db import models
from django.http import HttpRequest, HttpResponse

COOKIE = "memadmin_theme"
COOKIE_AGE = 60 * 60 * 24 * 365  # a year; choosing again renews it


class Theme(models.TextChoices):
    SYSTEM = "system", "System"
    LIGHT = "light", "Light"
    DARK = "dark", "Dark"


def theme_of(request: HttpRequest) -> str:
    """Return the theme this browser chose; the system's when none (or an unknown one)."""
    chosen = request.COOKIES.get(COOKIE, "")
    return chosen if chosen in Theme.values else Theme.SYSTEM


def remember_theme(response: HttpResponse, theme: str, *, secure: bool) -> None:
    """Set the cookie naming the theme on the response (not readable by scripts)."""
    response.set_cookie(
        COOKIE, theme, max_age=COOKIE_AGE, secure=secure, httponly=True, samesite="Lax"
    )
