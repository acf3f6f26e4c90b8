"""The gomocup game plugin for kothkit: Gomocup engines over the Piskvork protocol, unchanged."""
