"""The connect4_hidden game plugin for kothkit."""
