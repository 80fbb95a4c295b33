"""Typed tables of settings: the small part of a validation library that reverie's settings need.

Every command reads its settings before it does anything else. Built on pydantic they cost ~300 ms
of each start (~90 ms to import it, ~210 ms to build the validators of ~40 tables), more than the
whole of a cold ``reverie remember`` is allowed. This module gives the same declarations (typed
class attributes, :func:`Field` with bounds and an alias, :func:`field_validator`,
:func:`PrivateAttr`) and the same behaviour reverie relies on, in plain Python that costs a few
milliseconds:

- a table is built from a dict by its keys' user spelling (the alias) or the Python name; an
  unknown key is an error; values of the annotated type are accepted in their lax forms (``"12"``
  for a whole number, ``"true"`` for a flag: ``--set`` values and environment variables are text);
- assigning a field checks the value the same way; ``_private`` attributes are free;
- every error is :class:`Invalid`: where (the keys' path) and what, in words a user knows.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any, Literal

_MISSING = object()


class Invalid(ValueError):
    """A value or key that the settings refuse: ``loc`` is the path of keys, ``words`` the reason."""

    def __init__(self, loc: tuple, words: str, *, unknown: bool = False):
        super().__init__(f"{'.'.join(str(p) for p in loc) or '(settings)'}: {words}")
        self.loc = loc
        self.words = words
        self.unknown = unknown


class ValidationInfo:
    """What a validator sees of the table being built: the fields already checked, in order."""

    __slots__ = ("data",)

    def __init__(self, data: dict):
        self.data = data


class FieldInfo:
    __slots__ = ("default", "default_factory", "alias", "description", "ge", "le", "gt", "lt",
                 "validate_default", "annotation", "name", "check", "before", "after")

    def __init__(self, default: Any = _MISSING, *, default_factory=None, alias: str | None = None,
                 description: str | None = None, ge=None, le=None, gt=None, lt=None,
                 validate_default: bool = False):
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.description = description
        self.ge, self.le, self.gt, self.lt = ge, le, gt, lt
        self.validate_default = validate_default
        self.annotation: Any = None
        self.name = ""
        self.check = None
        self.before: list = []
        self.after: list = []

    @property
    def key(self) -> str:
        return self.alias or self.name

    def new_default(self):
        if self.default_factory is not None:
            return self.default_factory()
        if self.default is _MISSING:
            return _MISSING
        return _fresh(self.default)

    def validate(self, value: Any, loc: tuple, data: dict) -> Any:
        info = ValidationInfo(data)
        for fn in self.before:
            value = _run(fn, value, info, loc)
        value = self.check(value, loc)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self._bounds(value, loc)
        for fn in self.after:
            value = _run(fn, value, info, loc)
        return value

    def _bounds(self, value, loc: tuple) -> None:
        if self.ge is not None and not value >= self.ge:
            raise Invalid(loc, f"must be at least {self.ge}{_got(value)}")
        if self.gt is not None and not value > self.gt:
            raise Invalid(loc, f"must be more than {self.gt}{_got(value)}")
        if self.le is not None and not value <= self.le:
            raise Invalid(loc, f"must be at most {self.le}{_got(value)}")
        if self.lt is not None and not value < self.lt:
            raise Invalid(loc, f"must be less than {self.lt}{_got(value)}")


def Field(default: Any = _MISSING, **kwargs) -> Any:  # noqa: N802 - it reads like the declaration it is
    """A field's default and its rules (``alias``, ``description``, ``ge``/``le``/``gt``/``lt``,
    ``default_factory``, ``validate_default``)."""
    return FieldInfo(default, **kwargs)


class _Private:
    __slots__ = ("default", "factory")

    def __init__(self, default, factory):
        self.default, self.factory = default, factory


def PrivateAttr(default: Any = None, *, default_factory=None) -> Any:  # noqa: N802
    """An attribute of the object that is not a setting (never read from a file, never dumped)."""
    return _Private(default, default_factory)


def field_validator(*names: str, mode: str = "after"):
    """Mark a classmethod ``(cls, value[, info])`` that checks or changes the named fields' values:
    ``before`` the type is checked (it gets the raw value) or ``after``. A ``ValueError`` it raises
    is the user's error message."""
    def mark(method):
        fn = method.__func__ if isinstance(method, classmethod) else method
        fn._reverie_validates = (names, mode)
        return method

    return mark


def _run(fn, value, info: ValidationInfo, loc: tuple):
    try:
        return fn(value, info)
    except Invalid:
        raise
    except ValueError as exc:
        raise Invalid(loc, str(exc)) from None


def _got(value) -> str:
    shown = repr(value)
    return f" (got {shown})" if isinstance(value, (str, int, float, bool)) and len(shown) <= 60 else ""


def _fresh(value):
    """A copy each object owns of a default or a value (a nested table, list or dict that one object
    changes is never shared); settings hold only tables, lists, dicts and plain values. Faster than
    ``copy.deepcopy``, which a command's settings went through ~40 times."""
    if isinstance(value, Model):
        clone = type(value).__new__(type(value))
        clone.__dict__.update({k: _fresh(v) for k, v in value.__dict__.items()})
        return clone
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, set):
        return {_fresh(v) for v in value}
    return value


# -- checks of one annotated type -------------------------------------------------------------------
_TRUE = {"true", "1", "yes", "on", "t", "y"}
_FALSE = {"false", "0", "no", "off", "f", "n"}


def _bool(v, loc):
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    word = v.strip().lower() if isinstance(v, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise Invalid(loc, f"must be true or false{_got(v)}")


def _int(v, loc):
    if isinstance(v, bool):
        raise Invalid(loc, f"must be a whole number{_got(v)}")
    if isinstance(v, int):
        return v
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return int(v)
    if isinstance(v, str):
        try:
            return int(v.strip().replace("_", ""))
        except ValueError:
            pass
    raise Invalid(loc, f"must be a whole number{_got(v)}")


def _float(v, loc):
    if isinstance(v, bool):
        raise Invalid(loc, f"must be a number{_got(v)}")
    if isinstance(v, (int, float)):
        out = float(v)
    elif isinstance(v, str):
        try:
            out = float(v.strip())
        except ValueError:
            raise Invalid(loc, f"must be a number{_got(v)}") from None
    else:
        raise Invalid(loc, f"must be a number{_got(v)}")
    if not math.isfinite(out):
        raise Invalid(loc, f"must be a finite number{_got(v)}")
    return out


def _str(v, loc):
    if isinstance(v, str):
        return v
    raise Invalid(loc, f"must be text (a quoted string){_got(v)}")


def _none(v, loc):
    if v is None:
        return None
    raise Invalid(loc, f"must be empty (null){_got(v)}")


def _any(v, loc):
    return v


def _literal(choices: tuple):
    words = [str(c) for c in choices]
    listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]

    def check(v, loc):
        for c in choices:
            if type(v) is type(c) and v == c:
                return c
        raise Invalid(loc, f"must be one of {listed}{_got(v)}")

    return check


def _list(item):
    def check(v, loc):
        if not isinstance(v, (list, tuple)):
            raise Invalid(loc, f"must be a list{_got(v)}")
        return [item(x, loc + (i,)) for i, x in enumerate(v)]

    return check


def _dict(key, value):
    def check(v, loc):
        if not isinstance(v, dict):
            raise Invalid(loc, f"must be a table of keys and values{_got(v)}")
        return {key(k, loc + (k,)): value(x, loc + (k,)) for k, x in v.items()}

    return check


def _union(members: list, kinds: list):
    def check(v, loc):
        first = None
        for member, kind in zip(members, kinds):
            try:
                return member(v, loc)
            except Invalid as exc:
                # the first member's complaint, never "must be empty" when something else was meant; a
                # table given for a union with a table member: that member's complaint is the useful one
                if (first is None and kind is not type(None)) or (
                        isinstance(v, dict) and isinstance(kind, type) and issubclass(kind, Model)):
                    first = exc
        raise first if first is not None else Invalid(loc, f"must be empty (null){_got(v)}")

    return check


def _table(model: type[Model]):
    def check(v, loc):
        if isinstance(v, model):
            return v
        return model._build(v, loc)

    return check


_SCALARS = {bool: _bool, int: _int, float: _float, str: _str, type(None): _none, Any: _any}


def _checker(annotation):
    """The function that checks (and converts) a value of ``annotation``."""
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if isinstance(annotation, type) and issubclass(annotation, Model):
        return _table(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return _literal(args)
    if origin in (types.UnionType, typing.Union):
        # None first: an unset value is never turned into something else
        ordered = sorted(args, key=lambda a: a is not type(None))
        return _union([_checker(a) for a in ordered], ordered)
    if origin is list:
        return _list(_checker(args[0]) if args else _any)
    if origin is dict:
        return _dict(_checker(args[0]) if args else _any, _checker(args[1]) if args else _any)
    raise TypeError(f"settings cannot hold values of type {annotation!r}")


# -- tables -----------------------------------------------------------------------------------------
class Model:
    """A table of settings. Subclasses declare fields as annotated class attributes."""

    model_fields: dict[str, FieldInfo] = {}
    _keys: dict[str, str] = {}
    _privates: dict[str, _Private] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields: dict[str, FieldInfo] = {}
        privates: dict[str, _Private] = {}
        for base in reversed(cls.__mro__[1:]):
            if issubclass(base, Model):
                fields.update(base.model_fields)
                privates.update(base._privates)
        validators = [fn for fn in (getattr(v, "__func__", v) for v in cls.__dict__.values())
                      if callable(fn) and hasattr(fn, "_reverie_validates")]
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if isinstance(annotation, str):  # a module with ``from __future__ import annotations``
                import sys

                annotation = eval(annotation, vars(sys.modules[cls.__module__]), dict(vars(cls)))  # noqa: S307
            value = cls.__dict__.get(name, _MISSING)
            if name.startswith("_"):
                privates[name] = value if isinstance(value, _Private) else _Private(
                    None if value is _MISSING else value, None)
                if value is not _MISSING:
                    delattr(cls, name)
                continue
            if typing.get_origin(annotation) is typing.ClassVar:
                continue
            info = value if isinstance(value, FieldInfo) else FieldInfo(value)
            if value is not _MISSING:
                delattr(cls, name)
            info.name, info.annotation = name, annotation
            info.check = _checker(annotation)
            fields[name] = info
        for fn in validators:
            names, mode = fn._reverie_validates
            bound_fn = _bind(fn.__get__(cls, cls), takes_info=fn.__code__.co_argcount >= 3)
            for name in names:
                if name not in fields:
                    raise TypeError(f"{cls.__name__}: a validator names {name!r}, which is not a field")
                (fields[name].before if mode == "before" else fields[name].after).append(bound_fn)
        cls.model_fields = fields
        cls._privates = privates
        cls._keys = {**{n: n for n in fields}, **{f.alias: n for n, f in fields.items() if f.alias}}

    def __init__(self, **data: Any):
        built = type(self)._build(data, ())
        object.__setattr__(self, "__dict__", built.__dict__)

    @classmethod
    def model_validate(cls, data: Any):
        """The table ``data`` (a dict, as read from a settings file) describes."""
        return cls._build(data, ())

    @classmethod
    def _build(cls, data: Any, loc: tuple):
        if not isinstance(data, dict):
            raise Invalid(loc, f"must be a table of keys and values{_got(data)}")
        given: dict[str, tuple[str, Any]] = {}
        unknown = []
        for key, value in data.items():
            name = cls._keys.get(key) if isinstance(key, str) else None
            if name is None:
                unknown.append(key)
            else:
                given[name] = (key, value)
        values: dict[str, Any] = {}
        for name, info in cls.model_fields.items():
            if name in given:
                key, value = given[name]
                values[name] = info.validate(value, loc + (key,), values)
                continue
            default = info.new_default()
            if default is _MISSING:
                raise Invalid(loc + (info.key,), "is required")
            if info.validate_default:
                default = info.validate(default, loc + (info.key,), values)
            values[name] = default
        if unknown:
            raise Invalid(loc + (unknown[0],), "unknown key", unknown=True)
        self = cls.__new__(cls)
        state = self.__dict__
        state.update(values)
        for name, private in cls._privates.items():
            state[name] = private.factory() if private.factory else private.default
        state["_fields_set"] = set(given)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        info = type(self).model_fields.get(name)
        if info is not None:
            current = {n: v for n, v in self.__dict__.items() if n in type(self).model_fields and n != name}
            self.__dict__[name] = info.validate(value, (info.key,), current)
            self.__dict__["_fields_set"].add(name)
        elif name.startswith("_") or isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(f"{type(self).__name__} has no setting {name!r}")

    @property
    def model_fields_set(self) -> set[str]:
        """The fields given a value (by the data it was built from, or assigned since)."""
        return self.__dict__["_fields_set"]

    def model_dump(self, *, by_alias: bool = False, mode: str = "python") -> dict[str, Any]:
        """The settings as plain dicts and lists (keys spelt as users write them when ``by_alias``)."""
        return {(info.key if by_alias else name): _dump(self.__dict__[name], by_alias)
                for name, info in type(self).model_fields.items()}

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False):
        """A copy; ``update`` sets fields by name without checking them (as pydantic's does)."""
        if deep:
            clone = _fresh(self)
        else:
            clone = type(self).__new__(type(self))
            clone.__dict__.update(self.__dict__)
            clone.__dict__["_fields_set"] = set(self.__dict__["_fields_set"])
        for name, value in (update or {}).items():
            clone.__dict__[name] = value
            clone.__dict__["_fields_set"].add(name)
        return clone

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(self.__dict__[n] == other.__dict__[n] for n in type(self).model_fields)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={self.__dict__[n]!r}" for n in type(self).model_fields)
        return f"{type(self).__name__}({shown})"


def _bind(bound, *, takes_info: bool):
    """A validator called as ``(value, info)`` whether or not it reads the info."""
    if takes_info:
        return bound
    return lambda value, info: bound(value)


def _dump(value, by_alias: bool):
    if isinstance(value, Model):
        return value.model_dump(by_alias=by_alias)
    if isinstance(value, list):
        return [_dump(v, by_alias) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v, by_alias) for k, v in value.items()}
    return value
