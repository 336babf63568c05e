"""The bundled C example programs (calibration and demonstration suite); see ``catalog.json``."""
