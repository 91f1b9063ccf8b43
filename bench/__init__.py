"""`make bench`: cold-start cost of every function and the DynamoDB calls of each request."""
