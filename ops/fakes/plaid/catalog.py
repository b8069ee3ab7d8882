"""Reference data the fake draws from: merchants with Plaid's categories, institutions, names.

Categories use Plaid's real taxonomies: the legacy ``category``/``category_id`` hierarchy and
the personal finance category (``primary``/``detailed``), so downstream code sees the values
it will meet in production.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Merchant:
    """A counterparty for discretionary spending (amounts in dollars, positive = money out)."""

    name: str
    merchant_name: str
    category: tuple[str, ...]
    category_id: str
    pfc_primary: str
    pfc_detailed: str
    channel: str  # "in store" | "online" | "other"
    low: float
    high: float
    website: str | None
    descriptor: str  # how the bank statement line reads
    weight: int = 1
    card: bool = True  # may be charged on the credit card


# fmt: off
MERCHANTS: tuple[Merchant, ...] = (
    Merchant("Starbucks", "Starbucks", ("Food and Drink", "Restaurants", "Coffee Shop"), "13005043",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_COFFEE", "in store", 3.25, 11.80, "starbucks.com",
             "STARBUCKS STORE {n}", weight=8),
    Merchant("McDonald's", "McDonald's", ("Food and Drink", "Restaurants", "Fast Food"), "13005032",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_FAST_FOOD", "in store", 4.10, 18.60, "mcdonalds.com",
             "MCDONALD'S F{n}", weight=5),
    Merchant("Chipotle Mexican Grill", "Chipotle", ("Food and Drink", "Restaurants", "Fast Food"), "13005032",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_FAST_FOOD", "in store", 9.50, 24.00, "chipotle.com",
             "CHIPOTLE {n}", weight=4),
    Merchant("Uber Eats", "Uber Eats", ("Food and Drink", "Restaurants"), "13005000",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_RESTAURANT", "online", 14.00, 62.00, "ubereats.com",
             "UBER   EATS PENDING.UBER.COM", weight=4),
    Merchant("DoorDash", "DoorDash", ("Food and Drink", "Restaurants"), "13005000",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_RESTAURANT", "online", 15.00, 70.00, "doordash.com",
             "DD DOORDASH {n} WWW.DOORDASH.", weight=3),
    Merchant("Whole Foods Market", "Whole Foods Market", ("Shops", "Supermarkets and Groceries"), "19047000",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_GROCERIES", "in store", 18.00, 185.00, "wholefoodsmarket.com",
             "WHOLEFDS {n}", weight=5),
    Merchant("Kroger", "Kroger", ("Shops", "Supermarkets and Groceries"), "19047000",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_GROCERIES", "in store", 22.00, 160.00, "kroger.com",
             "KROGER #{n}", weight=6),
    Merchant("Trader Joe's", "Trader Joe's", ("Shops", "Supermarkets and Groceries"), "19047000",
             "FOOD_AND_DRINK", "FOOD_AND_DRINK_GROCERIES", "in store", 15.00, 120.00, "traderjoes.com",
             "TRADER JOE S #{n}", weight=4),
    Merchant("Shell", "Shell", ("Travel", "Gas Stations"), "22009000",
             "TRANSPORTATION", "TRANSPORTATION_GAS", "in store", 24.00, 72.00, "shell.com",
             "SHELL OIL {n}", weight=5),
    Merchant("Chevron", "Chevron", ("Travel", "Gas Stations"), "22009000",
             "TRANSPORTATION", "TRANSPORTATION_GAS", "in store", 26.00, 78.00, "chevron.com",
             "CHEVRON {n}", weight=3),
    Merchant("Uber", "Uber", ("Travel", "Taxi"), "22016000",
             "TRANSPORTATION", "TRANSPORTATION_TAXIS_AND_RIDE_SHARES", "online", 7.90, 48.00, "uber.com",
             "UBER   TRIP HELP.UBER.COM", weight=4),
    Merchant("Lyft", "Lyft", ("Travel", "Taxi"), "22016000",
             "TRANSPORTATION", "TRANSPORTATION_TAXIS_AND_RIDE_SHARES", "online", 8.50, 41.00, "lyft.com",
             "LYFT   *RIDE {n}", weight=2),
    Merchant("Amazon", "Amazon", ("Shops", "Digital Purchase"), "19013000",
             "GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES", "online", 6.99, 210.00, "amazon.com",
             "AMZN Mktp US*{n}", weight=7),
    Merchant("Target", "Target", ("Shops", "Department Stores"), "19012000",
             "GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_SUPERSTORES", "in store", 9.00, 160.00, "target.com",
             "TARGET        000{n}", weight=4),
    Merchant("Walmart", "Walmart", ("Shops", "Supermarkets and Groceries"), "19047000",
             "GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_SUPERSTORES", "in store", 7.50, 175.00, "walmart.com",
             "WAL-MART #{n}", weight=5),
    Merchant("CVS Pharmacy", "CVS", ("Shops", "Pharmacies"), "19043000",
             "MEDICAL", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS", "in store", 4.00, 64.00, "cvs.com",
             "CVS/PHARMACY #{n}", weight=3),
    Merchant("The Home Depot", "The Home Depot", ("Shops", "Hardware Store"), "19029000",
             "HOME_IMPROVEMENT", "HOME_IMPROVEMENT_HARDWARE", "in store", 12.00, 240.00, "homedepot.com",
             "THE HOME DEPOT #{n}", weight=2),
    Merchant("Apple", "Apple", ("Shops", "Computers and Electronics"), "19013000",
             "GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ELECTRONICS", "online", 0.99, 29.99, "apple.com",
             "APPLE.COM/BILL", weight=2),
    Merchant("Delta Air Lines", "Delta", ("Travel", "Airlines and Aviation Services"), "22001000",
             "TRAVEL", "TRAVEL_FLIGHTS", "online", 140.00, 620.00, "delta.com",
             "DELTA AIR {n}", weight=1),
    Merchant("Airbnb", "Airbnb", ("Travel", "Lodging"), "22012000",
             "TRAVEL", "TRAVEL_LODGING", "online", 110.00, 780.00, "airbnb.com",
             "AIRBNB * HM{n}", weight=1),
    Merchant("Venmo", "Venmo", ("Transfer", "Third Party", "Venmo"), "21010001",
             "TRANSFER_OUT", "TRANSFER_OUT_ACCOUNT_TRANSFER", "other", 10.00, 120.00, "venmo.com",
             "VENMO PAYMENT {n}", weight=3, card=False),
    Merchant("ATM Withdrawal", "", ("Transfer", "Withdrawal", "ATM"), "21012002",
             "TRANSFER_OUT", "TRANSFER_OUT_WITHDRAWAL", "in store", 20.00, 200.00, None,
             "ATM WITHDRAWAL {n} MAIN ST", weight=2, card=False),
    Merchant("Overdraft Fee", "", ("Bank Fees", "Overdraft"), "10007000",
             "BANK_FEES", "BANK_FEES_OVERDRAFT_FEES", "other", 35.00, 35.00, None,
             "OVERDRAFT ITEM FEE", weight=1, card=False),
)

#: Bills that repeat monthly: (name, merchant_name, category, category_id, pfc primary, detailed, amount, day).
SUBSCRIPTIONS: tuple[tuple[str, str, tuple[str, ...], str, str, str, float, int], ...] = (
    ("Netflix", "Netflix", ("Service", "Subscription"), "18061000",
     "ENTERTAINMENT", "ENTERTAINMENT_TV_AND_MOVIES", 15.49, 7),
    ("Spotify USA", "Spotify", ("Service", "Subscription"), "18061000",
     "ENTERTAINMENT", "ENTERTAINMENT_MUSIC_AND_AUDIO", 10.99, 12),
    ("Verizon Wireless", "Verizon", ("Service", "Telecommunication Services"), "18063000",
     "RENT_AND_UTILITIES", "RENT_AND_UTILITIES_TELEPHONE", 78.40, 21),
    ("Planet Fitness", "Planet Fitness", ("Recreation", "Gyms and Fitness Centers"), "17018000",
     "PERSONAL_CARE", "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", 24.99, 17),
)

EMPLOYERS = ("Gusto", "ADP", "Paychex", "Acme Logistics", "Northwind Health")
LANDLORDS = ("Avalon Properties", "Greystar", "Maple Court Apartments", "Riverside Lofts")

#: Well-known institutions (real Plaid ids) listed first, then generated regional banks.
FAMOUS_INSTITUTIONS: tuple[tuple[str, str, str, bool], ...] = (
    ("ins_109508", "First Platypus Bank", "https://www.plaid.com", False),
    ("ins_109509", "First Gingham Credit Union", "https://www.plaid.com", False),
    ("ins_109510", "Tattersall Federal Credit Union", "https://www.plaid.com", False),
    ("ins_109511", "Tartan Bank", "https://www.plaid.com", False),
    ("ins_109512", "Houndstooth Bank", "https://www.plaid.com", False),
    ("ins_56", "Chase", "https://www.chase.com", True),
    ("ins_127989", "Bank of America", "https://www.bankofamerica.com", False),
    ("ins_127991", "Wells Fargo", "https://www.wellsfargo.com", True),
    ("ins_5", "Citibank Online", "https://www.citi.com", True),
    ("ins_128026", "Capital One", "https://www.capitalone.com", True),
    ("ins_127990", "U.S. Bank", "https://www.usbank.com", False),
    ("ins_13", "PNC", "https://www.pnc.com", True),
    ("ins_14", "TD Bank", "https://www.td.com", False),
    ("ins_15", "Navy Federal Credit Union", "https://www.navyfederal.org", False),
    ("ins_11", "Charles Schwab", "https://www.schwab.com", True),
)
BANK_WORDS = (
    "First", "Citizens", "Peoples", "Summit", "Harbor", "Pioneer", "Heritage", "Liberty", "Valley",
    "Granite", "Cascade", "Prairie", "Lakeside", "Golden", "Evergreen", "Frontier", "Keystone",
    "Bayou", "Redwood", "Ironwood", "Silver State", "Blue Ridge", "Great Plains", "Coastal",
)
BANK_KINDS = (
    "Bank", "Credit Union", "Savings Bank", "Bank & Trust", "Federal Credit Union", "National Bank",
    "Community Bank", "Trust Company",
)
PLACES = (
    "", "", "", " of Texas", " of Ohio", " of the Midwest", " of Georgia", " of Colorado", " of Oregon",
    " of New England", " of Arizona", " of Florida",
)
INSTITUTION_PRODUCTS = ("assets", "auth", "balance", "identity", "investments", "liabilities", "transactions")

GIVEN_NAMES = ("Leslie", "Jordan", "Avery", "Morgan", "Riley", "Casey", "Taylor", "Jamie", "Quinn", "Drew")
FAMILY_NAMES = ("Knope", "Rivera", "Nguyen", "Okafor", "Schmidt", "Patel", "Kowalski", "Haddad", "Brennan")
CITIES = (
    ("Pawnee", "IN", "46001"), ("Austin", "TX", "78701"), ("Columbus", "OH", "43004"),
    ("Denver", "CO", "80202"), ("Portland", "OR", "97201"), ("Atlanta", "GA", "30303"),
)
STREETS = ("Main St", "Oak Ave", "Maple Dr", "Cedar Ln", "Elm St", "Park Blvd", "Lakeview Rd")
# fmt: on
