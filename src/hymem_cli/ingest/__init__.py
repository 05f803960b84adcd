"""Reading transcripts, cutting them into chunks, and feeding them to the bank."""
