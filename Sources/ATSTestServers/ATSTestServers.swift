import TLSFacts
