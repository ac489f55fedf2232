"""The class arena: students' bots play a tournament and the class sees what won.

``rules`` (what an arena allows, the bots), ``pairing`` (round robin, Swiss),
``standings`` (table, crosstable, what won), ``play`` (one game in this process) and
``cluster`` (the same games on a Dask cluster). Pure Python over the engine: the server
stores, schedules and streams; nothing here knows of it.
"""
