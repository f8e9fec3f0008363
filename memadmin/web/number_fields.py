"""Form fields that read numbers and rows strictly, with the rules of `memadmin.core.numbers`.

Django's `IntegerField` turns text into a number with `int()`, which accepts other scripts'
digits ("٣"), and sets no bound, so a number wider than the column reaches the database; its
`ModelChoiceField` looks the row up by the same `int()`. These refuse both as invalid input,
before any query. Every form of the dashboard uses them for ids and numbers.
"""

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.forms.fields import InvalidJSONInput

from memadmin.core.numbers import BIGINT_MAX, BIGINT_MIN, parse_id, parse_whole


class WholeNumberField(forms.IntegerField):
    """A whole number in ASCII digits within the widest integer column (tighter if asked)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The widget's min and max attributes stay those the form asked for.
        if self.max_value is None:
            self.validators.append(MaxValueValidator(BIGINT_MAX))
        if self.min_value is None:
            self.validators.append(MinValueValidator(BIGINT_MIN))

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        text = str(value).strip()
        number = parse_whole(text, minimum=-(10**19), maximum=10**19)
        if number is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return number


class RowChoiceField(forms.ModelChoiceField):
    """A row chosen by its id, which must be an id in ASCII digits before it is looked up."""

    def to_python(self, value):
        if value in self.empty_values or isinstance(value, self.queryset.model):
            return super().to_python(value)
        if self.to_field_name is None and parse_id(str(value)) is None:
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice"
            )
        return super().to_python(value)


class CheckedJSONField(forms.JSONField):
    """A JSON document; one Python cannot read (a number thousands of digits long) is invalid."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except ValueError as error:
            raise forms.ValidationError(
                self.error_messages["invalid"], code="invalid", params={"value": value}
            ) from error

    def bound_data(self, data, initial):
        try:
            return super().bound_data(data, initial)
        except ValueError:
            return InvalidJSONInput(data)  # shown again as typed, as Django does a typo
