"""The small parts every MCTS algorithm is composed of, one module each:
select (tree policy), expand, simulate (leaf evaluation), backup, final choice."""
