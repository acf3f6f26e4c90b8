"""The gomoku_classic12 game plugin for kothkit."""
