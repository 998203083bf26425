"""Slot values shared by several domains: places, people, days, times."""

from __future__ import annotations

from typing import NamedTuple

# Facts the simulated harness owns, drawn here as slot values so that what a user asks for is
# always something the harness knows: each city's climate (the weather service) and the day names
# the tools understand.
from generators.harness.dates import DAYS, WEEKDAYS  # noqa: F401 - slot values for the banks
from generators.harness.weather import CLIMATE


class City(NamedTuple):
    name: str
    country: str
    sights: tuple[str, str, str]
    food: str
    area: str  # a neighbourhood or district to wander in

    @property
    def climate(self) -> str:
        """The climate ("mild", "cold", "hot" or "wet"): the weather service's fact (harness/weather.py)."""
        return CLIMATE[self.name]


CITIES: tuple[City, ...] = (
    City("Lisbon", "Portugal", ("the Belem Tower", "the castle of Saint George", "the old yellow trams"), "custard tarts", "the Alfama district"),
    City("Rome", "Italy", ("the Colosseum", "the Pantheon", "the Trevi Fountain"), "cacio e pepe", "Trastevere"),
    City("Paris", "France", ("the Louvre", "the Eiffel Tower", "the Sainte-Chapelle"), "fresh croissants", "the Marais"),
    City("Barcelona", "Spain", ("the Sagrada Familia", "Park Guell", "the Boqueria market"), "tapas", "the Gothic Quarter"),
    City("Madrid", "Spain", ("the Prado museum", "the Retiro park", "the Royal Palace"), "churros with chocolate", "Malasana"),
    City("Berlin", "Germany", ("the Brandenburg Gate", "the East Side Gallery", "Museum Island"), "currywurst", "Kreuzberg"),
    City("Amsterdam", "the Netherlands", ("the Rijksmuseum", "the Anne Frank House", "the Jordaan canals"), "stroopwafels", "the Jordaan"),
    City("Vienna", "Austria", ("the Schonbrunn Palace", "Saint Stephen's Cathedral", "the Belvedere"), "apple strudel", "the Naschmarkt area"),
    City("Prague", "the Czech Republic", ("the Charles Bridge", "Prague Castle", "the astronomical clock"), "trdelnik pastries", "the Old Town"),
    City("Copenhagen", "Denmark", ("the Nyhavn harbour", "the Tivoli Gardens", "the Round Tower"), "open sandwiches", "Norrebro"),
    City("Stockholm", "Sweden", ("the Vasa Museum", "Gamla Stan", "the city hall tower"), "cinnamon buns", "Sodermalm"),
    City("Oslo", "Norway", ("the Opera House roof", "the Viking Ship collection", "Vigeland Park"), "brown cheese on waffles", "Grunerlokka"),
    City("Edinburgh", "Scotland", ("Edinburgh Castle", "Arthur's Seat", "the Royal Mile"), "shortbread", "Stockbridge"),
    City("Dublin", "Ireland", ("Trinity College library", "the Guinness Storehouse", "Saint Stephen's Green"), "soda bread", "Temple Bar"),
    City("London", "England", ("the British Museum", "the Tower of London", "the South Bank"), "fish and chips", "Borough"),
    City("Athens", "Greece", ("the Acropolis", "the Plaka streets", "the National Archaeological Museum"), "souvlaki", "Plaka"),
    City("Istanbul", "Turkey", ("the Hagia Sophia", "the Grand Bazaar", "a Bosphorus ferry"), "simit bread rings", "Karakoy"),
    City("Marrakesh", "Morocco", ("the Jemaa el-Fnaa square", "the Majorelle Garden", "the Bahia Palace"), "tagine", "the medina"),
    City("Cairo", "Egypt", ("the pyramids of Giza", "the Egyptian Museum", "the Khan el-Khalili bazaar"), "koshari", "Zamalek"),
    City("Cape Town", "South Africa", ("Table Mountain", "the Bo-Kaap houses", "Boulders Beach"), "bobotie", "the Waterfront"),
    City("Tokyo", "Japan", ("the Senso-ji temple", "the Shibuya crossing", "the Meiji Shrine"), "ramen", "Shimokitazawa"),
    City("Kyoto", "Japan", ("the Fushimi Inari shrine", "the Arashiyama bamboo grove", "the Golden Pavilion"), "matcha sweets", "Gion"),
    City("Seoul", "South Korea", ("Gyeongbokgung Palace", "the Bukchon village", "Namsan Tower"), "Korean barbecue", "Hongdae"),
    City("Singapore", "Singapore", ("Gardens by the Bay", "the Marina Bay waterfront", "the Botanic Gardens"), "chicken rice", "Tiong Bahru"),
    City("Bangkok", "Thailand", ("the Grand Palace", "Wat Arun", "the Chatuchak weekend market"), "pad thai", "the riverside"),
    City("Hanoi", "Vietnam", ("Hoan Kiem Lake", "the Temple of Literature", "the Old Quarter lanes"), "pho", "the Old Quarter"),
    City("Sydney", "Australia", ("the Opera House", "Bondi Beach", "the Harbour Bridge"), "meat pies", "the Rocks"),
    City("Melbourne", "Australia", ("the laneway cafes", "the Queen Victoria Market", "the Royal Botanic Gardens"), "flat whites", "Fitzroy"),
    City("Auckland", "New Zealand", ("the Sky Tower", "Waiheke Island", "Mount Eden"), "hokey pokey ice cream", "Ponsonby"),
    City("Vancouver", "Canada", ("Stanley Park", "Granville Island", "the Capilano bridge"), "salmon", "Gastown"),
    City("Montreal", "Canada", ("Mount Royal", "the Old Port", "the Notre-Dame Basilica"), "bagels", "the Plateau"),
    City("Toronto", "Canada", ("the CN Tower", "the Kensington Market", "the Toronto Islands"), "peameal bacon sandwiches", "Queen West"),
    City("New York", "the United States", ("Central Park", "the Brooklyn Bridge", "the Metropolitan Museum"), "bagels", "the West Village"),
    City("Chicago", "the United States", ("Millennium Park", "the Art Institute", "the lakefront trail"), "deep dish pizza", "Wicker Park"),
    City("San Francisco", "the United States", ("the Golden Gate Bridge", "Alcatraz", "the Ferry Building"), "sourdough bread", "the Mission"),
    City("Seattle", "the United States", ("Pike Place Market", "the Space Needle", "Discovery Park"), "fresh oysters", "Capitol Hill"),
    City("New Orleans", "the United States", ("the French Quarter", "Frenchmen Street", "City Park"), "beignets", "the Garden District"),
    City("Austin", "the United States", ("Barton Springs", "the Congress Avenue bats", "Zilker Park"), "brisket", "South Congress"),
    City("Mexico City", "Mexico", ("the Frida Kahlo museum", "Chapultepec Park", "the Zocalo"), "tacos al pastor", "Roma Norte"),
    City("Buenos Aires", "Argentina", ("the Recoleta cemetery", "the La Boca streets", "the Teatro Colon"), "empanadas", "Palermo"),
    City("Lima", "Peru", ("the Miraflores cliffs", "the historic centre", "the Barranco murals"), "ceviche", "Barranco"),
    City("Rio de Janeiro", "Brazil", ("Sugarloaf Mountain", "the Christ the Redeemer statue", "Ipanema Beach"), "pao de queijo", "Santa Teresa"),
    City("Reykjavik", "Iceland", ("the Hallgrimskirkja church", "the Harpa concert hall", "the Sun Voyager sculpture"), "lamb soup", "the old harbour"),
    City("Budapest", "Hungary", ("the thermal baths", "the Parliament building", "the Fisherman's Bastion"), "goulash", "the Jewish Quarter"),
    City("Krakow", "Poland", ("the Wawel Castle", "the main market square", "the Kazimierz streets"), "pierogi", "Kazimierz"),
    City("Porto", "Portugal", ("the Ribeira waterfront", "the Livraria Lello", "the Dom Luis bridge"), "francesinha sandwiches", "Ribeira"),
    City("Seville", "Spain", ("the Alcazar", "the Plaza de Espana", "the cathedral"), "orange blossom pastries", "Triana"),
    City("Florence", "Italy", ("the Uffizi", "the Duomo", "the Ponte Vecchio"), "ribollita soup", "Oltrarno"),
    City("Naples", "Italy", ("the Spaccanapoli street", "the archaeological museum", "the seafront promenade"), "pizza", "the Spanish Quarter"),
    City("Zurich", "Switzerland", ("the lake promenade", "the old town lanes", "the Uetliberg hill"), "rosti", "the Niederdorf"),
)

CITY_NAMES: tuple[str, ...] = tuple(c.name for c in CITIES)
CITY_BY_NAME = {c.name: c for c in CITIES}

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
)

FIRST_NAMES = (
    "Maya", "Leo", "Priya", "Tom", "Sofia", "Daniel", "Aisha", "Ben", "Chloe", "Marcus",
    "Hannah", "Omar", "Lucy", "Ethan", "Grace", "Noah", "Zoe", "Samuel", "Isabel", "Jamal",
    "Nina", "Oscar", "Ruby", "Felix", "Emma", "Diego", "Yuki", "Kwame", "Laura", "Ravi",
    "Clara", "Jonas", "Mei", "Hugo", "Fatima", "Liam", "Elena", "Sam", "Ingrid", "Mateo",
    "Julia", "Theo", "Amara", "Patrick", "Lena", "Arjun", "Rosa", "Victor", "Alice", "Kenji",
    "Martha", "Pablo", "Sara", "Ivan", "Nadia", "George", "Eva", "Tariq", "Molly", "Adam",
)

RELATIVES = (
    "mom", "dad", "sister", "brother", "grandma", "grandpa", "aunt", "uncle",
    "cousin", "niece", "nephew", "best friend", "neighbour", "partner", "son", "daughter",
)

# (as the user says it, as the assistant says it back)
COMPANIONS: tuple[tuple[str, str], ...] = (
    ("my partner", "your partner"), ("two friends", "two friends"), ("my parents", "your parents"),
    ("the kids", "the kids"), ("my sister", "your sister"), ("a colleague", "a colleague"),
    ("my best friend", "your best friend"), ("my husband", "your husband"), ("my wife", "your wife"),
    ("my brother", "your brother"), ("my in-laws", "your in-laws"),
    ("a big group of friends", "a big group of friends"), ("my grandparents", "your grandparents"),
    ("my teenage son", "your son"), ("my daughter", "your daughter"), ("my cousins", "your cousins"),
)

COLORS = (
    "sage green", "navy blue", "warm white", "terracotta", "soft yellow", "charcoal grey",
    "dusty pink", "forest green", "pale blue", "cream", "deep teal", "burnt orange",
)

ROOMS = (
    "kitchen", "living room", "bedroom", "bathroom", "hallway", "home office",
    "guest room", "kids' room", "garage", "dining room", "laundry room", "basement",
)
