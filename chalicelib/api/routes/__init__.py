"""The logic of every HTTP route: authorize, read the inputs, call the data layer, shape the answer.

``app.py`` holds one short view per route that calls a function here with the current
request and the route's path parameters (validated here, through the path schemas); each
function here returns the complete Chalice ``Response``.
"""
