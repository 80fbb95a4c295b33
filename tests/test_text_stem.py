"""The rough stem used for matching words across statements (text/concepts.py)."""

import pytest

from reverie.text.concepts import stem


@pytest.mark.parametrize("inflected, plain", [
    ("running", "run"), ("swimming", "swim"), ("stopped", "stop"), ("planned", "plan"),
    ("planning", "plan"), ("jogging", "jog"), ("nodded", "nod"), ("shopping", "shop"),
])
def test_a_consonant_doubled_before_ing_or_ed_is_undoubled(inflected, plain):
    assert stem(inflected) == stem(plain)


@pytest.mark.parametrize("inflected, plain", [
    ("staffed", "staff"), ("falling", "fall"), ("missed", "miss"), ("buzzing", "buzz"), ("added", "add"),
])
def test_a_word_that_ends_doubled_keeps_its_double(inflected, plain):
    assert stem(inflected) == stem(plain)


def test_other_words_keep_their_first_six_letters():
    assert stem("appointments") == "appoin"
    assert stem("runners") == "runner"  # (-ers is no ending taken off: a runner is not a run)


@pytest.mark.parametrize("form, other", [
    ("moved", "move"), ("moving", "move"), ("phones", "phone"), ("hoped", "hope"), ("cities", "city"),
    ("studies", "study"), ("classes", "class"), ("boxes", "box"), ("agreed", "agree"), ("freed", "free"),
])
def test_a_words_forms_share_its_stem(form, other):
    assert stem(form) == stem(other)
