"""Programme guide v2: channels, telecasts and shows per programme zone (spec document 2, part A)."""
