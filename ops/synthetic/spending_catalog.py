"""Who the synthetic users pay: statement lines, Plaid categories and plan prices.

Statement lines are templates, filled per user and per transaction (see ``spending.py``):
``{store}`` store number, ``{phone}`` payee phone, ``{id}`` ACH company id, ``{ref}`` a reference
that changes every time, ``{mmdd}`` the transaction's day, ``{last4}`` the account's last digits,
``{who}`` the user's name as the ACH "INDN" field prints it, ``{person}`` a P2P counterparty.
Several lines per payee: banks print the same merchant differently, and Plaid's
``merchant_name`` is there for some payees and not others.
"""

from __future__ import annotations

from dataclasses import dataclass

PRIMARIES = (
    "BANK_FEES",
    "ENTERTAINMENT",
    "FOOD_AND_DRINK",
    "GENERAL_MERCHANDISE",
    "GENERAL_SERVICES",
    "GOVERNMENT_AND_NON_PROFIT",
    "HOME_IMPROVEMENT",
    "INCOME",
    "LOAN_PAYMENTS",
    "MEDICAL",
    "PERSONAL_CARE",
    "RENT_AND_UTILITIES",
    "TRANSFER_IN",
    "TRANSFER_OUT",
    "TRANSPORTATION",
    "TRAVEL",
)


def primary_of(detailed: str) -> str:
    """Plaid's detailed categories start with their primary's name."""
    return max((p for p in PRIMARIES if detailed.startswith(p + "_")), key=len)


@dataclass(frozen=True)
class Payee:
    display: str  # the readable name a person would say ("Netflix")
    merchant_name: str | None  # Plaid's enrichment, when Plaid knows the merchant
    lines: tuple[str, ...]  # statement-line templates
    pfc: str  # Plaid personal finance category, detailed
    category: tuple[str, ...]  # Plaid's legacy category
    prices: tuple[int, ...] = ()  # plan prices in cents, for fixed-price payees


def _p(
    display: str, merchant: str | None, lines: tuple[str, ...], pfc: str, category: tuple[str, ...], *prices: int
) -> Payee:
    return Payee(display, merchant, lines, pfc, category, tuple(prices))


_SUB = ("Service", "Subscription")
_TV = "ENTERTAINMENT_TV_AND_MOVIES"
_MUSIC = "ENTERTAINMENT_MUSIC_AND_AUDIO"
_SOFT = "GENERAL_SERVICES_OTHER_GENERAL_SERVICES"
_GAMES = "ENTERTAINMENT_VIDEO_GAMES"

#: Card subscriptions charged monthly on the sign-up day (no business-day roll).
MONTHLY_SUBSCRIPTIONS: tuple[Payee, ...] = (
    _p(
        "Netflix",
        "Netflix",
        ("NETFLIX.COM 866-579-7172 CA", "Netflix.com Los Gatos CA", "NETFLIX.COM NETFLIX.COM CA"),
        _TV,
        _SUB,
        699,
        1549,
        2299,
    ),
    _p(
        "Spotify", "Spotify", ("SPOTIFY USA 877-778-1161 NY", "Spotify P{ref} Stockholm"), _MUSIC, _SUB, 1199, 1699, 599
    ),
    _p("Hulu", "Hulu", ("HULU 877-8244858 CA", "PAYPAL *HULU 402-935-7733 CA"), _TV, _SUB, 999, 1899),
    _p("Disney+", "Disney+", ("DISNEY PLUS 888-905-7888 CA", "DISNEYPLUS BURBANK CA"), _TV, _SUB, 999, 1599),
    _p("Max", "Max", ("MAX.COM 855-442-6629 NY", "MAX.COM NEW YORK NY"), _TV, _SUB, 999, 1699),
    _p("Peacock", "Peacock", ("PEACOCK {ref} PREMIUM NEW YORK NY",), _TV, _SUB, 799, 1399),
    _p(
        "Paramount+",
        "Paramount+",
        ("PARAMOUNT+ 888-274-5343 CA", "PARAMOUNT PLUS WEST HOLLYWOO CA"),
        _TV,
        _SUB,
        799,
        1299,
    ),
    _p(
        "YouTube Premium",
        "YouTube Premium",
        ("GOOGLE *YouTubePremium g.co/helppay#", "GOOGLE *YOUTUBE PREMIUM"),
        _TV,
        _SUB,
        1399,
        2299,
    ),
    _p("Google One", "Google One", ("GOOGLE *Google One g.co/helppay#",), _SOFT, _SUB, 199, 299, 999),
    _p(
        "iCloud+",
        "Apple",
        ("APPLE.COM/BILL 866-712-7753 CA", "APPLE.COM/BILL ITUNES.COM CA"),
        _SOFT,
        _SUB,
        99,
        299,
        999,
    ),
    _p("Apple Music", "Apple", ("APPLE.COM/BILL 866-712-7753 CA",), _MUSIC, _SUB, 1099, 1699),
    _p(
        "Amazon Prime",
        "Amazon Prime",
        ("Amazon Prime*{ref}", "AMAZON PRIME*{ref} AMZN.COM/BILL WA"),
        "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
        _SUB,
        1499,
    ),
    _p(
        "Adobe",
        "Adobe",
        ("ADOBE *CREATIVE CLOUD 408-536-6000 CA", "ADOBE *ADOBE 800-833-6687 CA"),
        _SOFT,
        _SUB,
        2299,
        5999,
        1199,
    ),
    _p("Microsoft 365", "Microsoft", ("MICROSOFT*MICROSOFT 365 P 800-642-7676 WA",), _SOFT, _SUB, 999, 699),
    _p("Dropbox", "Dropbox", ("DROPBOX*{ref} DROPBOX.COM CA",), _SOFT, _SUB, 1199, 1999),
    _p("ChatGPT", "OpenAI", ("OPENAI *CHATGPT SUBSCR OPENAI.COM CA",), _SOFT, _SUB, 2000),
    _p("Audible", "Audible", ("Audible*{ref} Amzn.com/bill NJ",), _MUSIC, _SUB, 1495, 795),
    _p(
        "Xbox Game Pass",
        "Xbox",
        ("MICROSOFT*XBOX 800-642-7676 WA", "Microsoft*Xbox Game Pass"),
        _GAMES,
        _SUB,
        1699,
        1099,
    ),
    _p("PlayStation Plus", "PlayStation", ("PLAYSTATION NETWORK 877-971-7669 CA",), _GAMES, _SUB, 1799, 999),
    _p("Duolingo", "Duolingo", ("DUOLINGO PITTSBURGH PA", "DUOLINGO SUPER 4124036500 PA"), _SOFT, _SUB, 1299),
    _p("Headspace", "Headspace", ("HEADSPACE.COM SANTA MONICA CA",), "PERSONAL_CARE_OTHER_PERSONAL_CARE", _SUB, 1299),
    _p(
        "Uber One",
        "Uber One",
        ("UBER *ONE MEMBERSHIP HELP.UBER.COM CA", "UBER ONE UBER.COM/BILL CA"),
        "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
        _SUB,
        999,
    ),
    _p(
        "DashPass",
        "DoorDash",
        ("DOORDASH DASHPASS 855-973-1040 CA", "DD *DASHPASS WWW.DOORDASH.CA"),
        "FOOD_AND_DRINK_RESTAURANT",
        _SUB,
        999,
    ),
    _p("Patreon", "Patreon", ("PATREON* MEMBERSHIP INTERNET", "Patreon* Membership"), _SOFT, _SUB, 500, 1000, 300),
    _p("SiriusXM", "SiriusXM", ("SIRIUSXM 888-635-5144 NY", "SIRIUS XM RADIO INC NY"), _MUSIC, _SUB, 1099, 1899),
    _p(
        "The Wall Street Journal",
        "Wall Street Journal",
        ("WSJ DIGITAL 800-568-7625 NJ", "DOW JONES WSJ NJ"),
        "GENERAL_SERVICES_OTHER_GENERAL_SERVICES",
        ("Service", "Subscription"),
        3899,
        999,
    ),
    _p(
        "Planet Fitness",
        "Planet Fitness",
        ("PLANET FIT CLUB FEES 844-880-7180 NH", "PLANET FITNESS {store}"),
        "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS",
        ("Recreation", "Gyms and Fitness Centers"),
        1500,
        2499,
    ),
    _p(
        "Crunch Fitness",
        "Crunch Fitness",
        ("CRUNCH FITNESS {store} {st}", "CRUNCH FITNESS MEMBERSHIP"),
        "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS",
        ("Recreation", "Gyms and Fitness Centers"),
        2999,
        1199,
    ),
)

#: Card subscriptions charged once a year.
ANNUAL_SUBSCRIPTIONS: tuple[Payee, ...] = (
    _p(
        "Amazon Prime",
        "Amazon Prime",
        ("Amazon Prime*{ref}", "AMAZON PRIME*{ref} AMZN.COM/BILL WA"),
        "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
        _SUB,
        13900,
    ),
    _p(
        "Costco Membership",
        "Costco",
        ("COSTCO *ANNUAL RENEWAL 800-774-2678 WA", "COSTCO WHSE MEMBERSHIP"),
        "GENERAL_MERCHANDISE_SUPERSTORES",
        ("Shops", "Warehouses and Wholesale Stores"),
        6500,
        13000,
    ),
    _p("Microsoft 365", "Microsoft", ("MICROSOFT*MICROSOFT 365 F 800-642-7676 WA",), _SOFT, _SUB, 9999, 6999),
    _p(
        "GoDaddy", "GoDaddy", ("DNH*GODADDY.COM 480-505-8855 AZ", "GODADDY.COM 480-5058855 AZ"), _SOFT, _SUB, 2199, 4599
    ),
    _p(
        "AAA Membership",
        "AAA",
        ("AAA MEMBERSHIP RENEWAL {st}", "AAA CLUB MEMBERSHIP"),
        "GENERAL_SERVICES_AUTOMOTIVE",
        ("Service", "Automotive"),
        6900,
        12400,
    ),
    _p("Calm", "Calm", ("CALM.COM SAN FRANCISCO CA",), "PERSONAL_CARE_OTHER_PERSONAL_CARE", _SUB, 6999),
    _p("PlayStation Plus", "PlayStation", ("PLAYSTATION NETWORK 877-971-7669 CA",), _GAMES, _SUB, 7999),
    _p(
        "Planet Fitness",
        "Planet Fitness",
        ("PLANET FIT ANNUAL FEE 844-880-7180 NH",),
        "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS",
        ("Recreation", "Gyms and Fitness Centers"),
        4900,
    ),
    _p(
        "Lemonade",
        "Lemonade",
        ("LEMONADE INSURANCE NEW YORK NY",),
        "GENERAL_SERVICES_INSURANCE",
        ("Service", "Insurance"),
        14400,
        19800,
    ),
    _p(
        "Vehicle registration",
        None,
        ("DMV RENEWAL {st} {ref}", "{st} DMV ONLINE REGISTRATION"),
        "GOVERNMENT_AND_NON_PROFIT_GOVERNMENT_DEPARTMENTS_AND_AGENCIES",
        ("Service", "Government Departments"),
        8500,
        16500,
    ),
)

#: Fixed-price services billed weekly or every two weeks on a card.
WEEKLY_CARD: tuple[Payee, ...] = (
    _p(
        "HelloFresh",
        "HelloFresh",
        ("HELLOFRESH 646-846-3663 NY", "HELLOFRESH.COM NEW YORK NY"),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Food and Beverage Store"),
        6999,
        8999,
        11499,
    ),
    _p(
        "Factor",
        "Factor",
        ("FACTOR75 888-451-2345 IL", "FACTOR 75 CHICAGO IL"),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Food and Beverage Store"),
        6499,
        9999,
    ),
)
BIWEEKLY_CARD: tuple[Payee, ...] = (
    _p(
        "Chewy",
        "Chewy",
        ("CHEWY.COM 800-672-4399 FL", "CHEWY INC DANIA FL"),
        "GENERAL_MERCHANDISE_PET_SUPPLIES",
        ("Shops", "Pets"),
        3899,
        5499,
        7249,
    ),
    _p(
        "Rover", "Rover", ("ROVER.COM SEATTLE WA",), "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", ("Service",), 6000, 8000
    ),
)

_RENT = "RENT_AND_UTILITIES_RENT"
_ELEC = "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY"
_WATER = "RENT_AND_UTILITIES_WATER"
_NET = "RENT_AND_UTILITIES_INTERNET_AND_CABLE"
_PHONE = "RENT_AND_UTILITIES_TELEPHONE"
_UTIL = ("Service", "Utilities")

#: Rent collected by ACH debit (prices are drawn per user, not from the payee).
LANDLORDS: tuple[Payee, ...] = (
    _p(
        "AvalonBay",
        "AvalonBay Communities",
        (
            "AVALONBAY WEB PMTS {id} WEB ID: 1942817395",
            "AVALONBAY COMMUN DES:WEB PMTS ID:{id} INDN:{who} CO ID:1942817395 WEB",
        ),
        _RENT,
        ("Payment", "Rent"),
    ),
    _p(
        "Greystar",
        None,
        ("GREYSTAR RENT ACH {id} PPD", "GREYSTAR PROPERTY RENTPAYMENT {id}"),
        _RENT,
        ("Payment", "Rent"),
    ),
    _p("Equity Residential", "Equity Residential", ("EQUITY RESIDENT RENT {id} WEB",), _RENT, ("Payment", "Rent")),
    _p("Camden", None, ("CAMDEN PROPERTY RENT PAYMT {id}", "CAMDEN LIVING WEB PMTS {id}"), _RENT, ("Payment", "Rent")),
    _p("Maple Court Apartments", None, ("MAPLE COURT APTS RENT {id} PPD",), _RENT, ("Payment", "Rent")),
)
#: Rent paid through a card portal (charged on the day, fee included; no business-day roll).
RENT_PORTALS: tuple[Payee, ...] = (
    _p("RentCafe", "RENTCafe", ("RENTCAFE.COM {store} 800-678-0166 CA",), _RENT, ("Payment", "Rent")),
)
MORTGAGES: tuple[Payee, ...] = (
    _p(
        "Rocket Mortgage",
        "Rocket Mortgage",
        ("ROCKET MORTGAGE PAYMENT PPD ID: {id}", "QUICKEN LOANS MTG PYMT {id}"),
        "LOAN_PAYMENTS_MORTGAGE_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "Wells Fargo Home Mortgage",
        None,
        ("WF HOME MTG AUTO PAY {mmdd} {id} {who}",),
        "LOAN_PAYMENTS_MORTGAGE_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "Mr. Cooper",
        "Mr. Cooper",
        ("MR COOPER MTG PMT {id} WEB", "NATIONSTAR MORTGAGE PAYMENT {id}"),
        "LOAN_PAYMENTS_MORTGAGE_PAYMENT",
        ("Payment", "Loan"),
    ),
)
ELECTRIC: tuple[Payee, ...] = (
    _p(
        "Con Edison",
        "Con Edison",
        ("CON ED OF NY INTELL CK {id}", "CON EDISON DES:INTELL CK ID:{id} INDN:{who}"),
        _ELEC,
        _UTIL,
    ),
    _p("PG&E", "PG&E", ("PGANDE WEB ONLINE {mmdd} {id}", "PG&E DES:WEB ONLINE ID:{id}"), _ELEC, _UTIL),
    _p("Duke Energy", "Duke Energy", ("DUKE ENERGY PAYMENT {id} PPD", "DUKEENERGY BILL PAY {id}"), _ELEC, _UTIL),
    _p("ComEd", "ComEd", ("COMED PAYMENT {id} WEB",), _ELEC, _UTIL),
    _p("Georgia Power", "Georgia Power", ("GEORGIA POWER BILL PAY {id} PPD",), _ELEC, _UTIL),
    _p("FPL", "Florida Power & Light", ("FPL DIRECT DEBIT ELEC PYMT {id}",), _ELEC, _UTIL),
)
GAS_UTILITIES: tuple[Payee, ...] = (
    _p("National Grid", "National Grid", ("NATIONAL GRID NY UTILITYPAY {id}",), _ELEC, _UTIL),
    _p("SoCalGas", "SoCalGas", ("SOCALGAS PAID SCGC {id}",), _ELEC, _UTIL),
    _p("Atmos Energy", "Atmos Energy", ("ATMOS ENERGY BILL PAY {id} WEB",), _ELEC, _UTIL),
)
WATER_MONTHLY: tuple[Payee, ...] = (
    _p("Seattle Public Utilities", None, ("CITY OF SEATTLE UTIL PAY {id}",), _WATER, _UTIL),
    _p("Austin Water", None, ("CITY OF AUSTIN UTILITIES {id} WEB",), _WATER, _UTIL),
)
WATER_QUARTERLY: tuple[Payee, ...] = (
    _p("Town of Cary Utilities", None, ("TOWN OF CARY UTILITY BILL {id}",), _WATER, _UTIL),
    _p("Aqua Water", "Aqua", ("AQUA PA WATER PAYMENT {id} PPD",), _WATER, _UTIL),
)
INTERNET: tuple[Payee, ...] = (
    _p(
        "Xfinity",
        "Xfinity",
        ("COMCAST XFINITY {phone} CO", "COMCAST CABLE COMM PAYMENT {id}"),
        _NET,
        _UTIL,
        5500,
        8000,
        10500,
    ),
    _p(
        "Spectrum",
        "Spectrum",
        ("SPECTRUM 855-707-7328 MO", "CHARTER COMMUNICATIONS SPECTRUM {id}"),
        _NET,
        _UTIL,
        6999,
        8999,
    ),
    _p("Google Fiber", "Google Fiber", ("GOOGLE *FIBER g.co/helppay#",), _NET, _UTIL, 7000, 10000),
)
PHONES: tuple[Payee, ...] = (
    _p(
        "Verizon",
        "Verizon",
        ("VERIZON WIRELESS PAYMENTS {id}", "VZWRLSS*APOCC VISB {phone} FL"),
        _PHONE,
        _UTIL,
        6500,
        9000,
        14000,
    ),
    _p(
        "T-Mobile",
        "T-Mobile",
        ("T-MOBILE AUTO PAY {id}", "TMOBILE*AUTO PAY 800-937-8997 WA"),
        _PHONE,
        _UTIL,
        5000,
        7500,
        12000,
    ),
    _p("AT&T", "AT&T", ("ATT*BILL PAYMENT 800-288-2020 TX", "AT&T DES:PAYMENT ID:{id}"), _PHONE, _UTIL, 6500, 8500),
    _p("Mint Mobile", "Mint Mobile", ("MINT MOBILE 800-683-7392 CA",), _PHONE, _UTIL, 1500, 3000),
)
CAR_LOANS: tuple[Payee, ...] = (
    _p(
        "Toyota Financial",
        "Toyota Financial Services",
        ("TOYOTA FINANCIAL DES:AUTOPAY ID:{id} INDN:{who} CO ID:{id} PPD", "TOYOTA PAYMENT {id}"),
        "LOAN_PAYMENTS_CAR_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "Ally Auto",
        "Ally",
        ("ALLY AUTO PAYMENT {id} WEB", "ALLY ALLY PAYMT {id}"),
        "LOAN_PAYMENTS_CAR_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "Honda Financial",
        "Honda Financial Services",
        ("AMERICAN HONDA FIN PYMT {id}",),
        "LOAN_PAYMENTS_CAR_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "Capital One Auto",
        None,
        ("CAPITAL ONE AUTO CARPAY {id} PPD",),
        "LOAN_PAYMENTS_CAR_PAYMENT",
        ("Payment", "Loan"),
    ),
)
STUDENT_LOANS: tuple[Payee, ...] = (
    _p(
        "Nelnet",
        "Nelnet",
        ("NELNET STUDENT LN {id} WEB", "NELNET LNS DES:NELNET LNS ID:{id}"),
        "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "MOHELA", "MOHELA", ("MOHELA STUDENT LOAN PMT {id}",), "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT", ("Payment", "Loan")
    ),
    _p(
        "Aidvantage",
        None,
        ("AIDVANTAGE DEPT ED PAYMENT {id}",),
        "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT",
        ("Payment", "Loan"),
    ),
)
PERSONAL_LOANS: tuple[Payee, ...] = (
    _p(
        "Upstart",
        "Upstart",
        ("UPSTART NETWORK LOAN PMT {id}",),
        "LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT",
        ("Payment", "Loan"),
    ),
    _p(
        "LendingClub",
        "LendingClub",
        ("LENDINGCLUB BANK LOAN {id} PPD",),
        "LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT",
        ("Payment", "Loan"),
    ),
)
CHILD_CARE: tuple[Payee, ...] = (
    _p(
        "Bright Horizons",
        "Bright Horizons",
        ("BRIGHT HORIZONS TUITION {id} WEB",),
        "GENERAL_SERVICES_CHILDCARE",
        ("Service", "Child Care"),
    ),
    _p(
        "KinderCare",
        "KinderCare",
        ("KINDERCARE LEARNING TUITION {id}",),
        "GENERAL_SERVICES_CHILDCARE",
        ("Service", "Child Care"),
    ),
)
CHILD_SUPPORT: tuple[Payee, ...] = (
    _p(
        "Child support",
        None,
        ("{st} SDU CHILD SUPPORT PMT {id}", "CHILD SUPPORT SDU {st} {id}"),
        "GOVERNMENT_AND_NON_PROFIT_GOVERNMENT_DEPARTMENTS_AND_AGENCIES",
        ("Payment",),
    ),
)
_INS = "GENERAL_SERVICES_INSURANCE"
AUTO_INSURANCE: tuple[Payee, ...] = (
    _p("GEICO", "GEICO", ("GEICO AUTO {id} PPD", "GEICO *AUTO 800-841-3000 DC"), _INS, ("Service", "Insurance")),
    _p(
        "Progressive",
        "Progressive",
        ("PROGRESSIVE INS {id} WEB", "PROG DIRECT INS PREM {id}"),
        _INS,
        ("Service", "Insurance"),
    ),
    _p("State Farm", "State Farm", ("STATE FARM RO 27 SFPP {id}",), _INS, ("Service", "Insurance")),
    _p("Allstate", "Allstate", ("ALLSTATE INS CO INS PREM {id}",), _INS, ("Service", "Insurance")),
)
LIFE_INSURANCE: tuple[Payee, ...] = (
    _p(
        "Northwestern Mutual",
        "Northwestern Mutual",
        ("NORTHWESTERN MU ISA PAYMNT {id}",),
        _INS,
        ("Service", "Insurance"),
    ),
    _p("Haven Life", "Haven Life", ("HAVEN LIFE INS PREMIUM {id}",), _INS, ("Service", "Insurance")),
)
QUARTERLY_SERVICES: tuple[Payee, ...] = (
    _p(
        "Sunridge HOA",
        None,
        ("SUNRIDGE HOA DUES {id} WEB", "SUNRIDGE HOMEOWNERS ASSN {id}"),
        "GENERAL_SERVICES_OTHER_GENERAL_SERVICES",
        ("Service",),
    ),
    _p(
        "Terminix",
        "Terminix",
        ("TERMINIX {phone} TN", "TERMINIX SERVICE {store}"),
        "HOME_IMPROVEMENT_REPAIR_AND_MAINTENANCE",
        ("Service", "Home Improvement"),
        9900,
        14900,
    ),
)

#: Everyday spending: frequent, near-regular, variable. Never a recurring expense.
GROCERS: tuple[Payee, ...] = (
    _p(
        "Trader Joe's",
        "Trader Joe's",
        ("TRADER JOE S #{store} {city} {st}",),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p(
        "Safeway",
        "Safeway",
        ("SAFEWAY #{store}", "SAFEWAY STORE {store} {city} {st}"),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p(
        "Kroger",
        "Kroger",
        ("KROGER #{store}", "KROGER {store} {city} {st}"),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p(
        "Whole Foods Market",
        "Whole Foods Market",
        ("WHOLEFDS {store}", "WHOLE FOODS MARKET {city}"),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p(
        "Publix",
        "Publix",
        ("PUBLIX #{store} {city} {st}",),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p(
        "Aldi",
        "Aldi",
        ("ALDI {store} {city} {st}",),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p(
        "H-E-B",
        "H-E-B",
        ("H-E-B #{store} {city} {st}",),
        "FOOD_AND_DRINK_GROCERIES",
        ("Shops", "Supermarkets and Groceries"),
    ),
)
COFFEE: tuple[Payee, ...] = (
    _p(
        "Starbucks",
        "Starbucks",
        ("STARBUCKS STORE {store}", "STARBUCKS {store} {city} {st}"),
        "FOOD_AND_DRINK_COFFEE",
        ("Food and Drink", "Restaurants", "Coffee Shop"),
        475,
        525,
        595,
        645,
    ),
    _p(
        "Dunkin'",
        "Dunkin'",
        ("DUNKIN #{store} {city} {st}",),
        "FOOD_AND_DRINK_COFFEE",
        ("Food and Drink", "Restaurants", "Coffee Shop"),
        329,
        419,
        499,
    ),
    _p(
        "Blue Bottle Coffee",
        "Blue Bottle Coffee",
        ("SQ *BLUE BOTTLE COFFEE {city}", "SQ *BLUE BOTTLE COF"),
        "FOOD_AND_DRINK_COFFEE",
        ("Food and Drink", "Restaurants", "Coffee Shop"),
        550,
        625,
        700,
    ),
    _p(
        "Corner Cafe",
        None,
        ("TST* CORNER CAFE {city}", "TST*CORNER CAFE {store}"),
        "FOOD_AND_DRINK_COFFEE",
        ("Food and Drink", "Restaurants", "Coffee Shop"),
        400,
        450,
        600,
    ),
)
GAS_STATIONS: tuple[Payee, ...] = (
    _p(
        "Shell",
        "Shell",
        ("SHELL OIL {store}", "SHELL SERVICE STATION {city} {st}"),
        "TRANSPORTATION_GAS",
        ("Travel", "Gas Stations"),
    ),
    _p(
        "Chevron",
        "Chevron",
        ("CHEVRON {store}", "CHEVRON {store} {city} {st}"),
        "TRANSPORTATION_GAS",
        ("Travel", "Gas Stations"),
    ),
    _p("ExxonMobil", "ExxonMobil", ("EXXONMOBIL {store}",), "TRANSPORTATION_GAS", ("Travel", "Gas Stations")),
    _p("Costco Gas", "Costco", ("COSTCO GAS #{store} {city} {st}",), "TRANSPORTATION_GAS", ("Travel", "Gas Stations")),
)
LUNCH: tuple[Payee, ...] = (
    _p(
        "Chipotle",
        "Chipotle",
        ("CHIPOTLE {store}", "CHIPOTLE ONLINE {store}"),
        "FOOD_AND_DRINK_FAST_FOOD",
        ("Food and Drink", "Restaurants", "Fast Food"),
    ),
    _p(
        "Sweetgreen",
        "Sweetgreen",
        ("SWEETGREEN {city}", "SQ *SWEETGREEN {store}"),
        "FOOD_AND_DRINK_RESTAURANT",
        ("Food and Drink", "Restaurants"),
    ),
    _p(
        "Panera Bread",
        "Panera Bread",
        ("PANERA BREAD #{store}",),
        "FOOD_AND_DRINK_RESTAURANT",
        ("Food and Drink", "Restaurants"),
    ),
    _p(
        "Chick-fil-A",
        "Chick-fil-A",
        ("CHICK-FIL-A #{store}",),
        "FOOD_AND_DRINK_FAST_FOOD",
        ("Food and Drink", "Restaurants", "Fast Food"),
    ),
    _p("Subway", "Subway", ("SUBWAY {store}",), "FOOD_AND_DRINK_FAST_FOOD", ("Food and Drink", "Restaurants")),
)
TRANSIT: tuple[Payee, ...] = (
    _p(
        "MTA",
        "MTA",
        ("MTA*NYCT PAYGO NEW YORK NY", "MTA*NYCT PAYGO"),
        "TRANSPORTATION_PUBLIC_TRANSIT",
        ("Travel", "Public Transportation Services"),
        290,
    ),
    _p(
        "Clipper",
        "Clipper",
        ("CLIPPER SERVICE CONCORD CA",),
        "TRANSPORTATION_PUBLIC_TRANSIT",
        ("Travel", "Public Transportation Services"),
        250,
        275,
    ),
)
#: Habits at a fixed price whose timing drifts (a visit every so many days, not on a calendar).
DRIFTING_HABITS: tuple[Payee, ...] = (
    _p(
        "Mister Car Wash",
        "Mister Car Wash",
        ("MISTER CAR WASH {store}",),
        "TRANSPORTATION_OTHER_TRANSPORTATION",
        ("Service", "Car Wash"),
        1200,
        1500,
        2000,
    ),
    _p(
        "Great Clips",
        "Great Clips",
        ("GREAT CLIPS #{store}",),
        "PERSONAL_CARE_HAIR_AND_BEAUTY",
        ("Service", "Personal Care"),
        2200,
        2800,
    ),
    _p(
        "Laundromat",
        None,
        ("SQ *SPIN CYCLE LAUNDRY", "SQ *SPIN CYCLE {city}"),
        "GENERAL_SERVICES_OTHER_GENERAL_SERVICES",
        ("Service", "Laundry"),
        850,
        1050,
    ),
)
RIDES: tuple[Payee, ...] = (
    _p(
        "Uber",
        "Uber",
        ("UBER *TRIP HELP.UBER.COM CA", "UBER   TRIP {ref} HELP.UBER.COM"),
        "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
        ("Travel", "Taxi"),
    ),
    _p("Lyft", "Lyft", ("LYFT *RIDE {mmdd} {ref}",), "TRANSPORTATION_TAXIS_AND_RIDE_SHARES", ("Travel", "Taxi")),
)
DELIVERY: tuple[Payee, ...] = (
    _p(
        "DoorDash",
        "DoorDash",
        ("DOORDASH*{shop}", "DD DOORDASH {shop}"),
        "FOOD_AND_DRINK_RESTAURANT",
        ("Food and Drink", "Restaurants"),
    ),
    _p(
        "Uber Eats",
        "Uber Eats",
        ("UBER *EATS {ref} HELP.UBER.COM",),
        "FOOD_AND_DRINK_RESTAURANT",
        ("Food and Drink", "Restaurants"),
    ),
)
AMAZON = _p(
    "Amazon",
    "Amazon",
    ("AMZN Mktp US*{ref}", "Amazon.com*{ref}", "AMAZON.COM*{ref} AMZN.COM/BILL WA"),
    "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
    ("Shops", "Digital Purchase"),
)
APP_STORE = _p(
    "App Store",
    "Apple",
    ("APPLE.COM/BILL 866-712-7753 CA",),
    "ENTERTAINMENT_VIDEO_GAMES",
    ("Service", "Digital Purchase"),
    99,
    199,
    299,
    499,
    999,
)
#: Occasional shopping and eating out: one-offs, some of them refunded.
ONE_OFF: tuple[Payee, ...] = (
    _p(
        "Target",
        "Target",
        ("TARGET 000{store}", "TARGET.COM *{ref}"),
        "GENERAL_MERCHANDISE_SUPERSTORES",
        ("Shops", "Department Stores"),
    ),
    _p(
        "Walmart",
        "Walmart",
        ("WAL-MART #{store}", "WALMART.COM {ref}"),
        "GENERAL_MERCHANDISE_SUPERSTORES",
        ("Shops", "Supermarkets and Groceries"),
    ),
    _p("Best Buy", "Best Buy", ("BEST BUY {store}",), "GENERAL_MERCHANDISE_ELECTRONICS", ("Shops", "Electronics")),
    _p(
        "The Home Depot",
        "The Home Depot",
        ("THE HOME DEPOT #{store}",),
        "HOME_IMPROVEMENT_HARDWARE",
        ("Shops", "Hardware Store"),
    ),
    _p("IKEA", "IKEA", ("IKEA {city}",), "HOME_IMPROVEMENT_FURNITURE", ("Shops", "Furniture and Home Decor")),
    _p("Etsy", "Etsy", ("ETSY.COM - {shop}",), "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES", ("Shops",)),
    _p(
        "Sephora",
        "Sephora",
        ("SEPHORA.COM {ref}", "SEPHORA {store}"),
        "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE",
        ("Shops", "Beauty Products"),
    ),
    _p("Nike", "Nike", ("NIKE.COM {ref}",), "GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES", ("Shops", "Clothing")),
    _p("TJ Maxx", "T.J. Maxx", ("TJMAXX #{store}",), "GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES", ("Shops",)),
    _p("CVS", "CVS", ("CVS/PHARMACY #{store}",), "MEDICAL_PHARMACIES_AND_SUPPLEMENTS", ("Shops", "Pharmacies")),
    _p(
        "Walgreens", "Walgreens", ("WALGREENS #{store}",), "MEDICAL_PHARMACIES_AND_SUPPLEMENTS", ("Shops", "Pharmacies")
    ),
    _p(
        "Olive Garden",
        "Olive Garden",
        ("OLIVE GARDEN {store}",),
        "FOOD_AND_DRINK_RESTAURANT",
        ("Food and Drink", "Restaurants"),
    ),
    _p(
        "Local bistro",
        None,
        ("TST* LA PETITE BISTRO {city}", "TST*LA PETITE BISTRO"),
        "FOOD_AND_DRINK_RESTAURANT",
        ("Food and Drink", "Restaurants"),
    ),
    _p(
        "Ticketmaster",
        "Ticketmaster",
        ("TICKETMASTER {ref}",),
        "ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS",
        ("Recreation",),
    ),
    _p("Airbnb", "Airbnb", ("AIRBNB * {ref}",), "TRAVEL_LODGING", ("Travel", "Lodging")),
    _p("Delta", "Delta", ("DELTA AIR {ref}",), "TRAVEL_FLIGHTS", ("Travel", "Airlines and Aviation Services")),
    _p(
        "Steam",
        "Steam",
        ("STEAMGAMES.COM {ref}", "STEAM PURCHASE 425-889-9642 WA"),
        _GAMES,
        ("Shops", "Digital Purchase"),
    ),
    _p("eBay", "eBay", ("EBAY O*{ref}",), "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES", ("Shops",)),
)

ETSY_SHOPS = ("SPROUTCANDLES", "MOSSANDFERN", "OAKPRINTS", "TINYKILN")
DELIVERY_SHOPS = ("CHIPOTLE", "PANDA EXPRESS", "THAI BASIL", "SHAKE SHACK", "PIZZA HUT")
PEOPLE = ("MARIA ALVAREZ", "JOHN KIM", "PRIYA SHAH", "DAVID COHEN", "LEE WONG", "SAM OKAFOR", "ANA LIMA")
CITIES = (
    ("AUSTIN", "TX"),
    ("BROOKLYN", "NY"),
    ("OAKLAND", "CA"),
    ("CHICAGO", "IL"),
    ("DENVER", "CO"),
    ("ATLANTA", "GA"),
)
EMPLOYERS = ("ACME LOGISTICS", "NORTHWIND HEALTH", "CONTOSO LTD", "GLOBEX CORP", "INITECH")
SAVINGS_ELSEWHERE = (
    ("Ally Bank", "ALLY BANK $TRANSFER {id} PPD"),
    ("Marcus", "GS BANK USA MARCUS TRANSFER {id}"),
    ("Capital One 360", "CAPITAL ONE 360 TRANSFER {ref}"),
)
INVESTING = (
    ("Acorns", "ACORNS INVEST {id} WEB"),
    ("Robinhood", "ROBINHOOD DEBITS {id} WEB"),
    ("Vanguard", "VANGUARD BUY INVESTMENT {id} PPD"),
    ("Betterment", "BETTERMENT INVESTMENT {id}"),
)
TO_SAVINGS = ("ONLINE TRANSFER TO SAV XXXXXX{last4} REF #IB{ref}", "TRANSFER TO SAVINGS XXXXXX{last4}")
FROM_CHECKING = ("ONLINE TRANSFER FROM CHK XXXXXX{last4} REF #IB{ref}",)
TO_CHECKING = ("ONLINE TRANSFER TO CHK XXXXXX{last4} REF #IB{ref}",)
FROM_SAVINGS = ("ONLINE TRANSFER FROM SAV XXXXXX{last4} REF #IB{ref}",)
CARD_THANKS = ("AUTOMATIC PAYMENT - THANK YOU", "AUTOPAY PAYMENT THANK YOU")
ATM_LINES = ("ATM WITHDRAWAL {ref} {city} {st}", "ATM CASH WITHDRAWAL #{store}")
VENMO_LINES = ("VENMO PAYMENT {ref}", "VENMO *{person}")
ZELLE_LINES = ("ZELLE PAYMENT TO {person} {ref}",)
CARD_ISSUERS = (
    ("Chase", "CHASE CREDIT CRD AUTOPAY PPD ID: {id}"),
    ("Citi", "CITI AUTOPAY PAYMENT {id} WEB"),
    ("Discover", "DISCOVER E-PAYMENT {id}"),
    ("American Express", "AMEX EPAYMENT ACH PMT {id}"),
)
