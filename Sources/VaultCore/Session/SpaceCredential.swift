/// What opens a space: its password, or the key `vault unlock` kept for this session.
public enum SpaceCredential {
  case password(Password)
  case sessionKey(SessionKey)
}
