"""The ledger's own table: token counts remembered by a 64-bit key of counter and text
(or, for a memory's plain line, of counter, memory id and content digest)."""

from django.db import models


class TextKeyField(models.BigIntegerField):
    """A signed 64-bit primary key the application computes; on SQLite, the table's rowid.

    SQLite makes a column declared `integer primary key` the rowid, so finding a row by
    it is one search of the table itself; a `bigint` key would add an index to search
    first. Elsewhere it is a plain bigint.
    """

    def db_type(self, connection) -> str:
        if connection.vendor == "sqlite":
            return "integer"
        return super().db_type(connection)


class TokenCount(models.Model):
    """How many tokens a counter finds in one exact text.

    `key` is `count_keys.text_keys` of the counter's label (name and version, such as
    `claude@1.0.6`) and the text, or for a memory's plain line `count_keys.line_keys` of
    the label, the memory's id and its content digest; `counter` repeats the label, so one
    counter's rows can be told apart. A cache, not a record: any row can be dropped and is counted again on the
    next preview. Nothing in it is audited.
    """

    key = TextKeyField(primary_key=True)
    counter = models.CharField(max_length=40)
    count = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.counter}:{self.key:x} = {self.count}"
