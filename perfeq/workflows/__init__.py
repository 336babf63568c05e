"""perfeq.workflows: what chains the stages, as a user would: build, run small, model, time.

``pipeline`` (the steps on a bundled example), ``calibrate`` (the measurement campaign of
``perfeq calibrate``), ``tour`` (the whole pipeline in one command), ``probe`` (the machine
probes of ``perfeq probe``) and their ``commands``.  The only package that imports every stage; no
stage imports it.
"""
