"""The gomoku_swap2 game plugin for kothkit."""
