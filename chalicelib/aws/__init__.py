"""AWS access: the one client factory and the one place boto errors are translated."""
