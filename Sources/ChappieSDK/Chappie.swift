public enum Chappie {}
