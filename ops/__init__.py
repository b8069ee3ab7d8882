"""Operations tooling: the local stack, packaging, fakes of peer services. Not deployed."""
