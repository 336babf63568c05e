"""perfeq.symbolic: symbolic operation counts chi(N, P) per basic block with sympy (stage 3)."""
