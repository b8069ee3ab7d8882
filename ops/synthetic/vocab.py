"""Names the generators draw from: payers, platforms, people, merchants and how banks word a
deposit. Invented or generic; the shapes follow what US bank feeds show."""

from __future__ import annotations

#: (descriptor name, display name Plaid may attach as merchant_name)
EMPLOYERS = (
    ("WALMART ASSOCIATES", "Walmart"),
    ("AMAZON.COM SERVICES", "Amazon"),
    ("TARGET CORP", "Target"),
    ("KROGER CO", "Kroger"),
    ("HOME DEPOT USA", "The Home Depot"),
    ("STARBUCKS CORP", "Starbucks"),
    ("UNITED PARCEL SVC", "UPS"),
    ("FEDEX GROUND", "FedEx"),
    ("CVS PHARMACY", "CVS"),
    ("WALGREEN CO", "Walgreens"),
    ("LOWES HOME CTRS", "Lowe's"),
    ("COSTCO WHOLESALE", "Costco"),
    ("DFAS-CLEVELAND", None),
    ("STATE OF OHIO", None),
    ("CITY OF AUSTIN", None),
    ("COUNTY OF FRESNO", None),
    ("MERCY HEALTH SYSTEM", None),
    ("BLUE RIVER HOSPITAL", None),
    ("NORTHWIND TRADERS", None),
    ("CONTOSO LTD", None),
    ("GLOBEX CORPORATION", None),
    ("INITECH INC", None),
    ("ACME LOGISTICS", None),
    ("PINNACLE STAFFING", None),
    ("SUMMIT DENTAL GROUP", None),
    ("LAKESIDE SCHOOL DIST", None),
    ("GREENLEAF LANDSCAPING", None),
    ("HARBOR FREIGHT TOOLS", "Harbor Freight"),
    ("DOLLAR GENERAL CORP", "Dollar General"),
    ("PUBLIX SUPER MKTS", "Publix"),
    ("ALLIED UNIVERSAL", None),
    ("SODEXO INC", None),
    ("ARAMARK SERVICES", None),
    ("TYSON FOODS", None),
    ("BRIGHTWAY AUTO BODY", None),
    ("SUNRISE SENIOR LIVING", None),
    ("METRO TRANSIT AUTH", None),
    ("RIVERSIDE CHARTER SCH", None),
    ("APEX CONSTRUCTION LLC", None),
    ("QUANTUM HEALTH INC", None),
    ("BAYVIEW MOTORS", None),
    ("CEDAR POINT REHAB", None),
    ("ORION SECURITY SVCS", None),
    ("MAPLE STREET BAKERY", None),
    ("KEYSTONE ELECTRIC", None),
    ("TRI COUNTY PLUMBING", None),
)

#: Gig platforms: how their payouts read.
GIG_PLATFORMS = (
    ("DOORDASH", ("DOORDASH DASHER PAYOUT", "DOORDASH INC FAST PAY", "DOORDASH, INC. DASHER")),
    ("UBER", ("UBER USA EDI PAYMNT", "UBER TECHNOLOGIES INSTANT PAY")),
    ("LYFT", ("LYFT INC EXPRESS PAY", "LYFT DRIVER PAYOUT")),
    ("INSTACART", ("INSTACART SHOPPER PAY", "MAPLEBEAR INC INSTACART")),
    ("GRUBHUB", ("GRUBHUB DRIVER PAY",)),
    ("SHIPT", ("SHIPT SHOPPER PAYOUT",)),
)

#: Other cash-advance and earned-wage apps: their disbursements are loans, never income.
ADVANCE_APPS = (
    ("EARNIN ACTIVEHOURS", "Earnin"),
    ("DAVE INC DAVE.COM", "Dave"),
    ("BRIGIT", "Brigit"),
    ("MONEYLION INSTACASH", "MoneyLion"),
    ("KLOVER HOLDINGS", "Klover"),
    ("CLEO AI ADVANCE", "Cleo"),
    ("ALBERT INSTANT", "Albert"),
    ("EMPOWER FINANCE ADV", "Empower"),
)

PEOPLE = (
    "JORDAN SMITH",
    "MARIA GARCIA",
    "DAVID NGUYEN",
    "ASHLEY JOHNSON",
    "KEVIN BROWN",
    "PRIYA PATEL",
    "LUIS HERNANDEZ",
    "EMILY DAVIS",
    "TYRONE WILLIAMS",
    "SARAH MILLER",
    "CHRIS LEE",
    "ANA LOPEZ",
)

#: (name, merchant_name, PFC v1 detailed, legacy category, typical cents)
MERCHANTS = (
    ("SQ *BLUE BOTTLE COFFEE", "Blue Bottle Coffee", "FOOD_AND_DRINK_COFFEE", ("Food and Drink", "Coffee Shop"), 650),
    ("STARBUCKS STORE 10234", "Starbucks", "FOOD_AND_DRINK_COFFEE", ("Food and Drink", "Coffee Shop"), 720),
    ("MCDONALD'S F1234", "McDonald's", "FOOD_AND_DRINK_FAST_FOOD", ("Food and Drink", "Restaurants"), 1150),
    ("CHIPOTLE 0987", "Chipotle", "FOOD_AND_DRINK_FAST_FOOD", ("Food and Drink", "Restaurants"), 1420),
    ("KROGER #432", "Kroger", "FOOD_AND_DRINK_GROCERIES", ("Shops", "Supermarkets and Groceries"), 6400),
    ("WAL-MART #3321", "Walmart", "GENERAL_MERCHANDISE_SUPERSTORES", ("Shops", "Supermarkets and Groceries"), 5800),
    ("TARGET 00012345", "Target", "GENERAL_MERCHANDISE_SUPERSTORES", ("Shops", "Department Stores"), 4300),
    ("AMAZON.COM*2K4LM", "Amazon", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES", ("Shops", "Digital Purchase"), 3100),
    ("SHELL OIL 5744", "Shell", "TRANSPORTATION_GAS", ("Travel", "Gas Stations"), 4200),
    ("CHEVRON 0099", "Chevron", "TRANSPORTATION_GAS", ("Travel", "Gas Stations"), 3900),
    ("UBER *TRIP", "Uber", "TRANSPORTATION_TAXIS_AND_RIDE_SHARES", ("Travel", "Taxi"), 1900),
    ("CVS/PHARMACY #1234", "CVS", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS", ("Shops", "Pharmacies"), 2300),
    ("DOLLAR GENERAL #99", "Dollar General", "GENERAL_MERCHANDISE_DISCOUNT_STORES", ("Shops", "Discount Stores"), 1800),
    ("TACO BELL 3021", "Taco Bell", "FOOD_AND_DRINK_FAST_FOOD", ("Food and Drink", "Restaurants"), 980),
)

#: Monthly bills: (name, merchant_name, PFC v1 detailed, legacy category, cents)
BILLS = (
    ("NETFLIX.COM", "Netflix", "ENTERTAINMENT_TV_AND_MOVIES", ("Service", "Subscription"), 1549),
    ("SPOTIFY USA", "Spotify", "ENTERTAINMENT_MUSIC_AND_AUDIO", ("Service", "Subscription"), 1199),
    ("T-MOBILE AUTOPAY", "T-Mobile", "RENT_AND_UTILITIES_TELEPHONE", ("Service", "Telecommunication"), 8500),
    ("DUKE ENERGY PAYMENT", "Duke Energy", "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY", ("Service", "Utilities"), 11200),
    ("GEICO AUTO", "GEICO", "GENERAL_SERVICES_INSURANCE", ("Service", "Insurance"), 13800),
    ("PLANET FITNESS", "Planet Fitness", "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", ("Recreation", "Gyms"), 2499),
)
