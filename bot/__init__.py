"""rolbot: the table core, the renderer and the command line."""
