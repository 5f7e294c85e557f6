"""Write a family-relations knowledge graph with its own multi-hop questions as a kgviz
`custom:` folder (`kb.tsv` plus `dev.jsonl`).

The data is a seeded synthetic genealogy in the style of PathQuestion's family KG (Freebase royal
families): founding couples of several European dynasties have children over six generations
(0-5); children take their father's family name, marry into other dynasties or into gentry
families, and a few widowers and widows remarry, so there are half-siblings and step-parents.
Everyone has a gender, a birth town, a nationality, a religion (mostly the father's), one or two
professions, and, for the dead, a place of death; the 60 towns are real ones, each `located_in`
one of 10 countries. People are `firstname_familyname` entities, repeated names numbered with
roman numerals (`henry_tudor`, `henry_tudor_ii`, ...).

Questions (about 200 1-hop, 250 2-hop and 200 3-hop) come from several phrasings per relation
path; a question's gold `answers` are every entity reached by following its `path` from its
topic entity in the KG. Questions with no answer, more than five, or the topic entity among
them are skipped. Records carry `path` (the relation names) beside the fields kgviz reads.

`kgviz data info family` writes it (seed 0) into the user cache; `FamilyKG` reads it from there.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kgviz.datasets.custom import CustomDataset
from kgviz.paths import cache_root
from kgviz.storage.atomic import write_text_atomic

GENERATIONS = 6
GROWTH = 1.35  # each generation is born about this many times larger than the one before
MAX_ANSWERS = 5
HOP_TARGETS = {1: 200, 2: 250, 3: 200}
# Share of each generation still alive (so without a place of death), youngest last.
ALIVE_SHARE = (0.0, 0.0, 0.0, 0.05, 0.3, 0.85)

MALE_NAMES = (
    "adam", "adrian", "albert", "albrecht", "alexander", "alfonso", "alfred", "alonso", "ambrose",
    "andrew", "anthony", "armand", "arthur", "august", "baldwin", "balthasar", "bartholomew",
    "benedict", "bernard", "bertrand", "boris", "carl", "casimir", "cedric", "charles",
    "christian", "christopher", "claude", "conrad", "constantine", "cosimo", "cyril", "damian",
    "daniel", "david", "denis", "dmitri", "duarte", "edmund", "edward", "emmanuel", "enrique",
    "ernest", "erik", "eugene", "felix", "ferdinand", "filippo", "florian", "francis", "frederick",
    "gabriel", "gaston", "geoffrey", "george", "gerard", "gilbert", "giovanni", "godfrey",
    "gregory", "gustav", "guy", "harald", "henry", "hugh", "humphrey", "ivan", "jacob", "james",
    "jasper", "jean", "joachim", "john", "joseph", "julian", "karl", "lambert", "laurence",
    "leonard", "leopold", "lewis", "lorenzo", "lothar", "louis", "ludwig", "magnus", "manuel",
    "marcel", "mark", "martin", "matthias", "maximilian", "michael", "miguel", "nicholas",
    "nikolai", "olaf", "oliver", "oscar", "otto", "pascal", "patrick", "paul", "pedro", "peter",
    "philip", "pierre", "rafael", "ralph", "raymond", "reginald", "richard", "robert", "roderick",
    "roger", "rudolf", "rupert", "sancho", "sebastian", "sigismund", "simon", "stanislaus",
    "stefan", "stephen", "sven", "thomas", "theodore", "tristan", "ulrich", "valdemar", "victor",
    "vincent", "vladimir", "walter", "wenzel", "wilhelm", "william", "yaroslav",
)  # fmt: skip
FEMALE_NAMES = (
    "adelaide", "agnes", "alexandra", "alice", "amalia", "anastasia", "anna", "anne", "antoinette",
    "arabella", "augusta", "barbara", "beatrice", "bianca", "blanche", "bridget", "camilla",
    "caroline", "catherine", "cecilia", "charlotte", "christina", "clara", "claudia", "constance",
    "cordelia", "dagmar", "diana", "dorothea", "eleanor", "elena", "elisabeth", "elizabeth",
    "eloise", "emilia", "emma", "eugenia", "euphemia", "evelyn", "frances", "frederica",
    "gabrielle", "georgiana", "gertrude", "giovanna", "grace", "harriet", "hedwig", "helena",
    "henrietta", "hermine", "hilda", "ida", "ingrid", "irene", "isabel", "isabella", "jacqueline",
    "jane", "joan", "johanna", "josephine", "judith", "julia", "juliana", "katarina", "leonor",
    "louisa", "louise", "lucia", "lucretia", "ludmila", "lydia", "mafalda", "magdalena",
    "margaret", "margarethe", "maria", "marianne", "marie", "marguerite", "martha", "mary",
    "matilda", "maud", "mathilde", "mercedes", "natalia", "olga", "philippa", "renata", "rosalind",
    "sibylla", "sophia", "sophie", "stephanie", "susanna", "tatiana", "theresa", "ulrika",
    "ursula", "valentina", "victoria", "viola", "wilhelmina", "yolanda", "zofia", "adela", "alma",
    "beatrix", "brigitta", "cristina", "dominika", "edith", "elsa", "esther", "felicity",
    "hortense", "ines", "jadwiga", "kristina", "leopoldina", "marina", "rosamund",
)  # fmt: skip

# country: (main religion, towns)
COUNTRIES = {
    "england": (
        "anglicanism",
        ("york", "winchester", "canterbury", "durham", "lincoln", "norwich"),
    ),
    "france": ("catholicism", ("paris", "reims", "orleans", "blois", "amboise", "lyon")),
    "spain": ("catholicism", ("toledo", "seville", "valladolid", "burgos", "granada", "zaragoza")),
    "portugal": ("catholicism", ("lisbon", "coimbra", "porto", "evora", "braga", "sintra")),
    "austria": ("catholicism", ("vienna", "graz", "innsbruck", "salzburg", "linz", "klagenfurt")),
    "germany": ("lutheranism", ("berlin", "potsdam", "munich", "dresden", "hanover", "heidelberg")),
    "sweden": ("lutheranism", ("stockholm", "uppsala", "gothenburg", "kalmar", "vasteras", "lund")),
    "denmark": ("lutheranism", ("copenhagen", "roskilde", "odense", "aarhus", "elsinore", "ribe")),
    "russia": ("orthodoxy", ("moscow", "novgorod", "tver", "vladimir", "kazan", "yaroslavl")),
    "italy": ("catholicism", ("florence", "naples", "turin", "milan", "parma", "modena")),
}
RELIGIONS = ("anglicanism", "catholicism", "lutheranism", "orthodoxy", "calvinism")
# family name: home country. Dynasties found the tree; gentry families only marry into it.
DYNASTIES = {
    "tudor": "england", "stuart": "england", "valois": "france", "bourbon": "france",
    "trastamara": "spain", "braganza": "portugal", "habsburg": "austria",
    "hohenzollern": "germany", "wittelsbach": "germany", "vasa": "sweden",
    "oldenburg": "denmark", "romanov": "russia", "rurik": "russia", "medici": "italy",
    "savoy": "italy", "plantagenet": "england", "aviz": "portugal", "wettin": "germany",
}  # fmt: skip
GENTRY = {
    "percy": "england", "howard": "england", "neville": "england", "seymour": "england",
    "guise": "france", "rohan": "france", "montmorency": "france", "mendoza": "spain",
    "guzman": "spain", "pereira": "portugal", "meneses": "portugal", "esterhazy": "austria",
    "liechtenstein": "austria", "nassau": "germany", "hesse": "germany", "brahe": "sweden",
    "oxenstierna": "sweden", "rantzau": "denmark", "trolle": "denmark", "golitsyn": "russia",
    "orlov": "russia", "orsini": "italy", "colonna": "italy", "gonzaga": "italy",
}  # fmt: skip
PROFESSIONS = (
    "monarch", "soldier", "diplomat", "bishop", "poet", "painter", "composer", "physician",
    "lawyer", "banker", "architect", "explorer", "naval_officer", "scholar", "philosopher",
    "merchant", "judge", "courtier", "astronomer", "writer", "politician", "engineer", "landowner",
    "abbess", "musician",
)  # fmt: skip

# relation path: phrasings; {x} is the topic entity, {spouse} "husband" or "wife" for it.
TEMPLATES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("father",): (
        "who is the father of {x}?",
        "who is {x}'s father?",
        "name the father of {x}",
    ),
    ("mother",): (
        "who is the mother of {x}?",
        "who is {x}'s mother?",
        "name the mother of {x}",
    ),
    ("spouse",): (
        "who is {x} married to?",
        "who is the {spouse} of {x}?",
        "whom did {x} marry?",
    ),
    ("children",): (
        "who are the children of {x}?",
        "name {x}'s children",
        "who are {x}'s sons and daughters?",
    ),
    ("sibling",): (
        "who are the siblings of {x}?",
        "who are {x}'s brothers and sisters?",
        "name a sibling of {x}",
    ),
    ("place_of_birth",): (
        "where was {x} born?",
        "what is the birthplace of {x}?",
        "in which town was {x} born?",
    ),
    ("place_of_death",): (
        "where did {x} die?",
        "in which town did {x} die?",
        "what is {x}'s place of death?",
    ),
    ("nationality",): (
        "what is the nationality of {x}?",
        "what country is {x} a national of?",
        "what is {x}'s nationality?",
    ),
    ("religion",): (
        "what religion does {x} follow?",
        "which faith did {x} practise?",
        "what is {x}'s religion?",
    ),
    ("profession",): (
        "what is the profession of {x}?",
        "what does {x} do for a living?",
        "what was {x}'s occupation?",
    ),
    ("father", "father"): (
        "who is the paternal grandfather of {x}?",
        "who is the father of {x}'s father?",
        "who is {x}'s father's father?",
    ),
    ("father", "mother"): (
        "who is the paternal grandmother of {x}?",
        "who is the mother of the father of {x}?",
        "who is {x}'s father's mother?",
    ),
    ("mother", "father"): (
        "who is the maternal grandfather of {x}?",
        "who is the father of {x}'s mother?",
        "who is {x}'s mother's father?",
    ),
    ("mother", "mother"): (
        "who is the maternal grandmother of {x}?",
        "who is the mother of {x}'s mother?",
        "who is {x}'s mother's mother?",
    ),
    ("father", "place_of_birth"): (
        "where was {x}'s father born?",
        "what is the birthplace of the father of {x}?",
    ),
    ("mother", "place_of_birth"): (
        "where was {x}'s mother born?",
        "in which town was the mother of {x} born?",
    ),
    ("spouse", "place_of_birth"): (
        "where was {x}'s {spouse} born?",
        "in which town was the {spouse} of {x} born?",
    ),
    ("spouse", "father"): (
        "who is the father-in-law of {x}?",
        "who is the father of {x}'s {spouse}?",
    ),
    ("spouse", "mother"): (
        "who is the mother-in-law of {x}?",
        "who is the mother of {x}'s {spouse}?",
    ),
    ("spouse", "religion"): (
        "what religion does {x}'s {spouse} follow?",
        "which faith did the {spouse} of {x} practise?",
    ),
    ("spouse", "profession"): (
        "what is the profession of {x}'s {spouse}?",
        "what did the {spouse} of {x} do for a living?",
    ),
    ("father", "profession"): (
        "what was the profession of {x}'s father?",
        "what did the father of {x} do for a living?",
    ),
    ("mother", "religion"): (
        "what religion does the mother of {x} follow?",
        "which faith did {x}'s mother practise?",
    ),
    ("father", "nationality"): (
        "what is the nationality of {x}'s father?",
        "what country is the father of {x} a national of?",
    ),
    ("children", "spouse"): (
        "who are the spouses of {x}'s children?",
        "whom did the children of {x} marry?",
    ),
    ("children", "religion"): (
        "what religion do the children of {x} follow?",
        "which faiths do {x}'s children practise?",
    ),
    ("children", "profession"): (
        "what professions do {x}'s children have?",
        "what do the children of {x} do for a living?",
    ),
    ("children", "place_of_birth"): (
        "where were the children of {x} born?",
        "in which towns were {x}'s children born?",
    ),
    ("children", "children"): (
        "who are the grandchildren of {x}?",
        "who are the children of {x}'s children?",
    ),
    ("sibling", "spouse"): (
        "who are {x}'s siblings married to?",
        "who are the spouses of the siblings of {x}?",
    ),
    ("sibling", "children"): (
        "who are the nieces and nephews of {x}?",
        "who are the children of {x}'s siblings?",
    ),
    ("father", "sibling"): (
        "who are the siblings of {x}'s father?",
        "who are {x}'s paternal aunts and uncles?",
    ),
    ("mother", "sibling"): (
        "who are the siblings of {x}'s mother?",
        "who are {x}'s maternal aunts and uncles?",
    ),
    ("place_of_birth", "located_in"): (
        "in which country was {x} born?",
        "what country is {x}'s birthplace in?",
    ),
    ("place_of_death", "located_in"): (
        "in which country did {x} die?",
        "what country is the town where {x} died in?",
    ),
    ("father", "father", "father"): (
        "who is the father of {x}'s paternal grandfather?",
        "who is {x}'s father's father's father?",
        "who is the paternal great-grandfather of {x} on the male line?",
    ),
    ("mother", "mother", "mother"): (
        "who is the mother of {x}'s maternal grandmother?",
        "who is {x}'s mother's mother's mother?",
    ),
    ("father", "mother", "father"): (
        "who is the father of {x}'s paternal grandmother?",
        "who is {x}'s father's mother's father?",
    ),
    ("mother", "father", "father"): (
        "who is the father of {x}'s maternal grandfather?",
        "who is {x}'s mother's father's father?",
    ),
    ("father", "father", "place_of_birth"): (
        "where was {x}'s paternal grandfather born?",
        "what is the birthplace of the father of {x}'s father?",
    ),
    ("mother", "mother", "place_of_birth"): (
        "where was {x}'s maternal grandmother born?",
        "in which town was the mother of {x}'s mother born?",
    ),
    ("father", "mother", "nationality"): (
        "what is the nationality of {x}'s paternal grandmother?",
        "what country is the mother of {x}'s father a national of?",
    ),
    ("father", "place_of_birth", "located_in"): (
        "in which country was the father of {x} born?",
        "what country was {x}'s father born in?",
    ),
    ("mother", "place_of_birth", "located_in"): (
        "in which country was the mother of {x} born?",
        "what country was {x}'s mother born in?",
    ),
    ("spouse", "place_of_birth", "located_in"): (
        "in which country was {x}'s {spouse} born?",
        "what country was the {spouse} of {x} born in?",
    ),
    ("spouse", "father", "profession"): (
        "what was the profession of {x}'s father-in-law?",
        "what did the father of {x}'s {spouse} do for a living?",
    ),
    ("spouse", "mother", "religion"): (
        "what religion does the mother of {x}'s {spouse} follow?",
        "which faith did {x}'s mother-in-law practise?",
    ),
    ("father", "spouse", "place_of_birth"): (
        "where were the wives of {x}'s father born?",
        "in which towns were the wives of the father of {x} born?",
    ),
    ("children", "spouse", "father"): (
        "who are the fathers of the people {x}'s children married?",
        "who are the fathers-in-law of the children of {x}?",
    ),
    ("children", "spouse", "nationality"): (
        "what nationality are the spouses of {x}'s children?",
        "which countries do the people the children of {x} married come from?",
    ),
    ("sibling", "spouse", "place_of_birth"): (
        "where were the spouses of {x}'s siblings born?",
        "in which towns were the people {x}'s siblings married born?",
    ),
    ("father", "sibling", "children"): (
        "who are {x}'s cousins on the father's side?",
        "who are the children of the siblings of {x}'s father?",
    ),
    ("mother", "sibling", "children"): (
        "who are {x}'s cousins on the mother's side?",
        "who are the children of the siblings of {x}'s mother?",
    ),
    ("children", "children", "religion"): (
        "what religion do {x}'s grandchildren follow?",
        "which faiths do the children of {x}'s children practise?",
    ),
    ("children", "place_of_death", "located_in"): (
        "in which countries did the children of {x} die?",
        "what countries did {x}'s children die in?",
    ),
}


TOWN_COUNTRY = {town: country for country, (_, towns) in COUNTRIES.items() for town in towns}
Triple = tuple[str, str, str]


@dataclass
class Person:
    name: str
    first: str
    family: str
    gender: str  # "male" or "female"
    generation: int
    birth_town: str
    nationality: str
    religion: str
    father: str | None = None
    mother: str | None = None
    spouses: list[str] = field(default_factory=list)
    home: str | None = None  # the seat of their first marriage
    professions: list[str] = field(default_factory=list)
    death_town: str | None = None


def roman(number: int) -> str:
    """`number` (below 40, plenty here) in lower-case roman numerals."""
    text = ""
    for value, letters in ((10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        count, number = divmod(number, value)
        text += letters * count
    return text


def poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw (Knuth's method, fine for the small means used here)."""
    limit, count, product = math.exp(-mean), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


class Genealogy:
    """People and marriages, grown generation by generation from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.people: dict[str, Person] = {}  # in order of birth, parents before children
        self.children: defaultdict[str, list[str]] = defaultdict(list)
        self.couples: list[tuple[Person, Person]] = []  # (husband, wife)
        self._name_counts: Counter[str] = Counter()

    def add_person(
        self,
        first: str,
        family: str,
        gender: str,
        generation: int,
        birth_town: str,
        parents: tuple[Person, Person] | None = None,
    ) -> Person:
        """A new person named `first_family`, with a roman numeral from the second one on; with
        `parents`, of the father's nationality and mostly of his religion."""
        base = f"{first}_{family}"
        self._name_counts[base] += 1
        count = self._name_counts[base]
        country = TOWN_COUNTRY[birth_town]
        person = Person(
            name=base if count == 1 else f"{base}_{roman(count)}",
            first=first,
            family=family,
            gender=gender,
            generation=generation,
            birth_town=birth_town,
            nationality=country,
            religion=self.religion_of(country),
        )
        if parents is not None:
            father, mother = parents
            person.father, person.mother = father.name, mother.name
            person.nationality = father.nationality
            if self.rng.random() < 0.85:
                person.religion = father.religion
            self.children[father.name].append(person.name)
            self.children[mother.name].append(person.name)
        self.people[person.name] = person
        return person

    def religion_of(self, country: str) -> str:
        """Mostly the country's religion, sometimes another one."""
        if self.rng.random() < 0.1:
            return self.rng.choice(RELIGIONS)
        return COUNTRIES[country][0]

    def town_in(self, country: str) -> str:
        return self.rng.choice(COUNTRIES[country][1])

    def any_town(self) -> str:
        return self.rng.choice(sorted(TOWN_COUNTRY))

    def first_name(self, gender: str) -> str:
        return self.rng.choice(MALE_NAMES if gender == "male" else FEMALE_NAMES)

    def outsider(self, partner: Person) -> Person:
        """Someone of a gentry family other than `partner`'s, without parents in the tree, of
        `partner`'s generation and the other gender, to marry them."""
        family = self.rng.choice([f for f in sorted(GENTRY) if f != partner.family])
        gender = "female" if partner.gender == "male" else "male"
        town = self.town_in(GENTRY[family])
        return self.add_person(self.first_name(gender), family, gender, partner.generation, town)

    def marry(self, husband: Person, wife: Person) -> None:
        """Their seat is mostly his birth town, else another town of his country."""
        seat = husband.birth_town
        if self.rng.random() < 0.3:
            seat = self.town_in(husband.nationality)
        for person in (husband, wife):
            person.home = person.home or seat
        husband.spouses.append(wife.name)
        wife.spouses.append(husband.name)
        self.couples.append((husband, wife))

    def found(self, dynasty: str) -> None:
        """A dynasty's founding couple in generation 0; he is its first monarch."""
        town = self.town_in(DYNASTIES[dynasty])
        husband = self.add_person(self.first_name("male"), dynasty, "male", 0, town)
        husband.professions.append("monarch")
        self.marry(husband, self.outsider(husband))

    def child_name(self, gender: str, father: Person, mother: Person, taken: list[str]) -> str:
        """Often a name from the family (a parent or grandparent), else a fresh one; never one
        of the `taken` names of the couple's other children."""
        grandparents = (father.father, father.mother, mother.father, mother.mother)
        elders = [father, mother] + [self.people[g] for g in grandparents if g is not None]
        named = [e.first for e in elders if e.gender == gender and e.first not in taken]
        if named and self.rng.random() < 0.35:
            return self.rng.choice(named)
        while (name := self.first_name(gender)) in taken:
            pass
        return name

    def bear_children(self, husband: Person, wife: Person, mean: float) -> list[Person]:
        """Mostly born at the couple's seat, sometimes elsewhere in its country or abroad."""
        seat = husband.home or husband.birth_town
        children: list[Person] = []
        for _ in range(min(poisson(self.rng, mean), 9)):
            gender = self.rng.choice(("male", "female"))
            roll = self.rng.random()
            town = seat
            if roll < 0.08:
                town = self.any_town()
            elif roll < 0.25:
                town = self.town_in(TOWN_COUNTRY[seat])
            name = self.child_name(gender, husband, wife, [c.first for c in children])
            generation = husband.generation + 1
            children.append(
                self.add_person(name, husband.family, gender, generation, town, (husband, wife))
            )
        return children

    def pair_up(self, generation: list[Person], last: bool) -> None:
        """Marry most of a generation (fewer in the `last`, youngest one): to each other across
        families, else to outsiders."""
        share = 0.55 if last else 0.85
        willing = [p for p in generation if self.rng.random() < share]
        women = [p for p in willing if p.gender == "female"]
        self.rng.shuffle(women)
        for man in (p for p in willing if p.gender == "male"):
            match = next((w for w in women if can_marry(man, w)), None)
            if match is not None and self.rng.random() < 0.5:
                women.remove(match)
                self.marry(man, match)
            else:
                self.marry(man, self.outsider(man))
        for woman in women:
            self.marry(self.outsider(woman), woman)

    def remarry(self, generation: list[Person]) -> None:
        """A few married people take a second spouse from outside the tree."""
        for person in generation:
            if person.spouses and self.rng.random() < 0.08:
                couple = sorted((person, self.outsider(person)), key=lambda p: p.gender != "male")
                self.marry(*couple)


def can_marry(man: Person, woman: Person) -> bool:
    """Of different families and without a parent in common."""
    common = {man.father, man.mother} & {woman.father, woman.mother}
    return man.family != woman.family and not common - {None}


def grow(rng: random.Random, people: int) -> Genealogy:
    """About `people` people over GENERATIONS generations, founded by one dynasty per hundred
    people (3 to all of them); each generation is born GROWTH times larger than the one before."""
    tree = Genealogy(rng)
    for dynasty in sorted(DYNASTIES)[: max(3, min(len(DYNASTIES), people // 100))]:
        tree.found(dynasty)
    weights = [GROWTH**g for g in range(1, GENERATIONS)]
    start = 0  # the previous generation's couples are tree.couples[start:]
    for number in range(1, GENERATIONS):
        couples = tree.couples[start:]
        start = len(tree.couples)
        remaining = max(people - len(tree.people), 0)
        # each child brings about 0.6 more people (spouses from outside) into the tree
        births = remaining * weights[number - 1] / sum(weights[number - 1 :]) / 1.6
        mean = min(max(births / max(len(couples), 1), 0.3), 5.0)
        born = [child for h, w in couples for child in tree.bear_children(h, w, mean)]
        tree.pair_up(born, last=number == GENERATIONS - 1)
        tree.remarry(born)
    return tree


def finish(tree: Genealogy) -> None:
    """Professions (the eldest son of a monarch is one too) and places of death."""
    rng = tree.rng
    for person in tree.people.values():
        father = tree.people.get(person.father or "")
        if person.gender == "male" and father is not None and "monarch" in father.professions:
            sons = [c for c in tree.children[father.name] if tree.people[c].gender == "male"]
            if sons[0] == person.name:
                person.professions.append("monarch")
        while not person.professions or (len(person.professions) < 2 and rng.random() < 0.15):
            profession = rng.choice(PROFESSIONS[1:])
            if profession not in person.professions:
                person.professions.append(profession)
        if rng.random() >= ALIVE_SHARE[person.generation]:
            person.death_town = death_town(tree, person)


def death_town(tree: Genealogy, person: Person) -> str:
    """Mostly where they lived, else elsewhere in that country or abroad."""
    home = person.home or person.birth_town
    roll = tree.rng.random()
    if roll < 0.6:
        return home
    return tree.town_in(TOWN_COUNTRY[home]) if roll < 0.85 else tree.any_town()


def person_triples(tree: Genealogy, person: Person) -> list[Triple]:
    name = person.name
    facts = [
        ("gender", person.gender),
        ("place_of_birth", person.birth_town),
        ("nationality", person.nationality),
        ("religion", person.religion),
    ]
    facts += [("profession", p) for p in person.professions]
    facts += [("spouse", s) for s in person.spouses]
    facts += [("children", c) for c in tree.children[name]]
    if person.death_town is not None:
        facts.append(("place_of_death", person.death_town))
    if person.father is not None and person.mother is not None:
        facts += [("father", person.father), ("mother", person.mother)]
        siblings = tree.children[person.father] + tree.children[person.mother]
        facts += [("sibling", s) for s in siblings if s != name]
    return [(name, relation, tail) for relation, tail in facts]


def kg_triples(tree: Genealogy) -> list[Triple]:
    """Every fact about every person (siblings share at least one parent), plus the towns."""
    triples = {t for person in tree.people.values() for t in person_triples(tree, person)}
    triples |= {(town, "located_in", country) for town, country in TOWN_COUNTRY.items()}
    return sorted(triples)


def follow(edges: dict[tuple[str, str], list[str]], start: str, path: Sequence[str]) -> list[str]:
    """Every entity reached from `start` along the relations of `path`, sorted."""
    frontier = {start}
    for relation in path:
        frontier = {tail for entity in frontier for tail in edges.get((entity, relation), ())}
    return sorted(frontier)


def questions(rng: random.Random, tree: Genealogy, triples: list[Triple]) -> list[dict]:
    """HOP_TARGETS questions per path length, spread evenly over the paths of TEMPLATES, about
    topic entities drawn at random; the gold answers are exactly the entities the path reaches."""
    edges: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    for head, relation, tail in triples:
        edges[head, relation].append(tail)
    people = list(tree.people)
    records = []
    for hops, target in HOP_TARGETS.items():
        paths = [path for path in TEMPLATES if len(path) == hops]
        number = 0
        for index, path in enumerate(paths):
            quota = target // len(paths) + (index < target % len(paths))
            for topic in rng.sample(people, len(people)):
                if quota == 0:
                    break
                answers = follow(edges, topic, path)
                if not answers or len(answers) > MAX_ANSWERS or topic in answers:
                    continue
                spouse = "wife" if tree.people[topic].gender == "male" else "husband"
                number += 1
                quota -= 1
                records.append(
                    {
                        "id": f"family-{hops}hop-{number:04d}",
                        "question": rng.choice(TEMPLATES[path]).format(x=topic, spouse=spouse),
                        "answers": answers,
                        "topic_entities": [topic],
                        "hops": hops,
                        "path": list(path),
                    }
                )
    return records


def write_family_kg(folder: Path, seed: int = 0, people: int = 1500) -> dict[str, int]:
    """Grow the genealogy, write `kb.tsv` and `dev.jsonl` into `folder` (each atomically) and
    return its counts."""
    rng = random.Random(seed)
    tree = grow(rng, people)
    finish(tree)
    triples = kg_triples(tree)
    records = questions(rng, tree, triples)
    write_text_atomic(folder / "kb.tsv", "".join("\t".join(t) + "\n" for t in triples))
    write_text_atomic(folder / "dev.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    per_hop = Counter(r["hops"] for r in records)
    return {
        "people": len(tree.people),
        "entities": len({e for h, _, t in triples for e in (h, t)}),
        "relations": len({r for _, r, _ in triples}),
        "triples": len(triples),
        **{f"{h}-hop questions": per_hop[h] for h in sorted(per_hop)},
    }


class FamilyKG(CustomDataset):
    """The family KG of seed 0, written into the user cache on first use (a few seconds)."""

    def __init__(self, seed: int = 0) -> None:
        folder = cache_root() / "datasets" / f"family-{seed}"
        super().__init__(folder, name="family", domain="paths")  # PathQuestion's few-shots fit
        self.seed = seed
        self.description = "built-in synthetic royal genealogy (1/2/3-hop questions), generated"

    def check_available(self) -> None:
        if not (self.root / "dev.jsonl").is_file():
            write_family_kg(self.root, self.seed)
        super().check_available()

    def available_splits(self) -> list[str]:
        return ["dev"]
