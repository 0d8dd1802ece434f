public import RexActors
