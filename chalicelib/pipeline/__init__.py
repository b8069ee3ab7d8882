"""Pipeline stages: intake, miner, throttle-miner, refiner."""
