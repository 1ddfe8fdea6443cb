import ChappieSDK
