"""English irregular inflections, mapped to the word a stemmer would reach from the base.

A suffix stemmer joins "camping" and "camped" with "camp", but not "went" with
"go" nor "children" with "child": "where did she go?" misses "we went there
last week". :data:`IRREGULAR` maps the common irregular past forms, past
participles and plurals to their base word, which :mod:`memdir.search.terms`
stems as usual, in the index and in queries alike.

Left out on purpose: forms with a common sense of their own ("left", "saw",
"felt", "fell", "found", "led", "rose", "bit", "lay", "wound", "ground",
"bound", "shot", "stuck"),
forms equal to their base ("read", "put", "cut"), and forms of words the stop
list drops ("had", "did", "done", "been").
"""

from __future__ import annotations

__all__ = ["IRREGULAR"]

from collections.abc import Mapping

# Each line: the base word, then its irregular forms.
_TABLE = """
arise arose arisen
awake awoke awoken
bear bore borne
beat beaten
become became
begin began begun
bend bent
bite bitten
bleed bled
blow blew blown
break broke broken
breed bred
bring brought
build built
burn burnt
buy bought
catch caught
choose chose chosen
cling clung
come came
creep crept
deal dealt
dig dug
draw drew drawn
dream dreamt
drink drank drunk
drive drove driven
eat ate eaten
feed fed
fight fought
flee fled
fling flung
fly flew flown
forbid forbade forbidden
forget forgot forgotten
forgive forgave forgiven
freeze froze frozen
get got gotten
give gave given
go went gone
grow grew grown
hang hung
hear heard
hide hid hidden
hold held
keep kept
kneel knelt
know knew known
lend lent
lose lost
make made
mean meant
meet met
overcome overcame
pay paid
ride rode ridden
ring rang rung
rise risen
run ran
say said
seek sought
sell sold
send sent
shake shook shaken
shine shone
show shown
shrink shrank shrunk
sing sang sung
sink sank sunk
sit sat
sleep slept
slide slid
speak spoke spoken
speed sped
spend spent
spin spun
stand stood
steal stole stolen
sting stung
stink stank stunk
strike struck stricken
strive strove striven
swear swore sworn
sweep swept
swim swam swum
swing swung
take took taken
teach taught
tear torn
tell told
think thought
throw threw thrown
understand understood
wake woke woken
wear wore worn
weave wove woven
weep wept
win won
withdraw withdrew withdrawn
write wrote written
child children
person people
man men
woman women
foot feet
tooth teeth
mouse mice
goose geese
wife wives
knife knives
half halves
shelf shelves
wolf wolves
"""

IRREGULAR: Mapping[str, str] = {
    form: words[0]
    for words in (line.split() for line in _TABLE.strip().splitlines())
    for form in words[1:]
}
"""Irregular form -> base word (lower case)."""
