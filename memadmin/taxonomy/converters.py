"""The URL converter of a category name, for every URL that names a category."""

from django.urls import register_converter

from memadmin.core.packs import CATEGORY_NAME


class CategoryNameConverter:
    """A category name as packs spell it: PROJECT_RULES, OPS_RULES, ...

    Anything else in its place (a NUL byte, lower case, 41 characters) matches no URL: 404.
    """

    regex = CATEGORY_NAME.pattern.removeprefix("^").removesuffix("$")

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(CategoryNameConverter, "category")
