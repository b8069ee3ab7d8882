"""Infrastructure: one declaration, rendered to CloudFormation and to a local bootstrap."""
