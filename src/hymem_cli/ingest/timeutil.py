"""Timestamp normalisation: turn the many ways transcripts write times into one UTC form.

Every timestamp hymem stores is "YYYY-MM-DDTHH:MM:SSZ" (UTC, whole seconds), so that
string comparison orders them and `--since/--until` filters are plain comparisons.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timezone

# Epoch values above this are milliseconds: 1e11 seconds is the year 5138, 1e11 ms is 1973.
_EPOCH_MS_THRESHOLD = 1e11

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_BASIC_DATE = re.compile(r"\d{8}")  # "20240501": ISO basic date, not an epoch
_SLASH_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})")  # "2024/05/01 ..." -> "2024-05-01 ..."
_UTC_SUFFIX = re.compile(r"\s*(?:UTC|GMT)$")  # "2024-05-01 10:00 UTC" -> "...Z"

_FORMAT_HELP = "use ISO 8601 (2024-05-01, 2024-05-01T10:00:00Z, 2024-05-01 10:00) or epoch seconds"


def normalize_timestamp(value: object) -> str | None:
    """Return `value` as "YYYY-MM-DDTHH:MM:SSZ" in UTC, or None when it is absent or unparseable.

    Accepts ISO 8601 strings (date only, with or without seconds, `Z`, an offset, or naive =
    UTC), "YYYY-MM-DD HH:MM[:SS]", epoch seconds or milliseconds (numbers or numeric strings),
    and datetime/date objects. Fractions of a second are dropped.
    """
    if value is None:
        return None
    try:
        return _normalize(value)
    except ValueError:
        return None


def parse_time_arg(s: str) -> str:
    """Normalise a `--since/--until` argument like normalize_timestamp; raise ValueError if unparseable."""
    try:
        return _normalize(s)
    except ValueError:
        raise ValueError(f"cannot read {s!r} as a time: {_FORMAT_HELP}") from None


def _normalize(value: object) -> str:
    """The parser behind both public functions; raises ValueError for anything it cannot read."""
    # bool is an int subclass, but `true` is never a time.
    if isinstance(value, bool):
        raise ValueError("a boolean is not a time")
    if isinstance(value, (int, float)):
        return _from_epoch(value)
    if isinstance(value, datetime):
        return _format_utc(value)
    if isinstance(value, date):
        return _format_utc(datetime(value.year, value.month, value.day))
    if isinstance(value, str):
        return _from_string(value)
    raise ValueError(f"{type(value).__name__} is not a time")


def _from_string(text: str) -> str:
    s = text.strip()
    if _NUMBER.fullmatch(s) and not _BASIC_DATE.fullmatch(s):
        return _from_epoch(float(s))
    s = _UTC_SUFFIX.sub("Z", s.upper())
    s = _SLASH_DATE.sub(lambda m: f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}", s, count=1)
    try:
        parsed = datetime.fromisoformat(s)
    except ValueError:
        raise ValueError(f"cannot read {text!r} as a time") from None
    return _format_utc(parsed)


def _from_epoch(seconds: float) -> str:
    if isinstance(seconds, float) and not math.isfinite(seconds):
        raise ValueError("not a finite number")
    try:
        if abs(seconds) > _EPOCH_MS_THRESHOLD:
            seconds = seconds / 1000
        # Whole seconds only: truncate rather than let fromtimestamp round up a minute boundary.
        parsed = datetime.fromtimestamp(math.floor(seconds), tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"epoch value {seconds!r} is out of range") from None
    return _format_utc(parsed)


def _format_utc(moment: datetime) -> str:
    # Naive times are taken as UTC: transcripts rarely say their zone, and UTC is the stable guess.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        moment = moment.astimezone(timezone.utc)
    except OverflowError:  # e.g. 0001-01-01T00:00+01:00 falls before year 1
        raise ValueError("time is out of range") from None
    # Explicit padding: strftime("%Y") does not zero-pad years below 1000 on every platform.
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}Z"
    )
