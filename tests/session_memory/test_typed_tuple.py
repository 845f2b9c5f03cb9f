"""The NamedTuple of the hook's modules builds what typing.NamedTuple builds."""

from __future__ import annotations

import copy
import pickle
import typing
from collections.abc import Callable

import pytest

from session_memory.apps.memory_dir.typed_tuple import NamedTuple


class Lean(NamedTuple):
    """A record."""

    name: str
    size: int = 0
    tags: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.size

    @classmethod
    def named(cls, name: str) -> Lean:
        return cls(name)


class Typed(typing.NamedTuple):
    """A record."""

    name: str
    size: int = 0
    tags: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.size

    @classmethod
    def named(cls, name: str) -> Typed:
        return cls(name)


class TestLikeTypingNamedTuple:
    def test_fields_defaults_and_docstring(self) -> None:
        """Fields, their defaults and the docstring are typing's."""
        assert Lean._fields == Typed._fields
        assert Lean._field_defaults == Typed._field_defaults
        assert Lean.__doc__ == Typed.__doc__ == "A record."
        assert list(Lean.__annotations__) == list(Typed.__annotations__)

    def test_values_behave_alike(self) -> None:
        """Construction, equality, repr, _replace, _asdict, methods and properties match."""
        lean, typed = Lean("a", size=2), Typed("a", size=2)
        assert tuple(lean) == tuple(typed) == ("a", 2, ())
        assert repr(lean).removeprefix("Lean") == repr(typed).removeprefix("Typed")
        assert lean._replace(size=0).empty and typed._replace(size=0).empty
        assert lean._asdict() == typed._asdict()
        assert tuple(Lean.named("b")) == tuple(Typed.named("b"))
        assert isinstance(lean, tuple) and Lean.__mro__[1:] == Typed.__mro__[1:]

    def test_construction_binds_like_the_generated_signature(self) -> None:
        """Positional, keyword and default arguments bind alike; bad calls are TypeErrors."""
        calls: list[Callable[[type[typing.Any]], object]] = [
            lambda cls: cls("a"),
            lambda cls: cls(name="a", tags=("t",)),
            lambda cls: cls("a", 1, ("t",)),
            lambda cls: cls._make(["a", 1, ()]),
            lambda cls: cls(),
            lambda cls: cls("a", 1, (), 4),
            lambda cls: cls("a", name="b"),
            lambda cls: cls("a", colour="red"),
            lambda cls: cls._make(["a"]),
        ]
        for call in calls:
            outcomes: list[tuple[object, ...]] = []
            for cls in (Lean, Typed):
                try:
                    outcomes.append(tuple(call(cls)))  # type: ignore[arg-type]
                except TypeError:
                    outcomes.append(("TypeError",))
            assert outcomes[0] == outcomes[1]

    def test_the_rest_of_the_namedtuple_protocol(self) -> None:
        """__match_args__, field docs, copies and unknown _replace fields are typing's."""
        assert Lean.__match_args__ == Typed.__match_args__
        assert Lean.size.__doc__ == Typed.size.__doc__
        assert copy.copy(Lean("a")) == Lean("a") and copy.deepcopy(Lean("a")) == Lean("a")
        assert Lean("a").__reduce_ex__(2)[1][1:] == Typed("a").__reduce_ex__(2)[1][1:]
        for value in (Lean("a"), Typed("a")):
            with pytest.raises(ValueError, match="unexpected field names"):
                value._replace(colour="red")  # type: ignore[call-arg]

    def test_pickles(self) -> None:
        """A value survives pickling (the class is found by its module and name)."""
        assert pickle.loads(pickle.dumps(Lean("a", 1, ("x",)))) == Lean("a", 1, ("x",))

    def test_a_field_without_a_default_after_one_with_is_refused(self) -> None:
        """As with typing, fields with defaults come last."""
        with pytest.raises(TypeError):

            class Bad(NamedTuple):
                a: int = 0
                b: int  # type: ignore[misc]

    def test_namedtuple_attributes_cannot_be_overwritten(self) -> None:
        """As with typing, the class body cannot replace _replace, _fields..."""
        with pytest.raises(AttributeError):

            class Bad(NamedTuple):
                a: int

                def _replace(self) -> None:  # type: ignore[misc]
                    pass
