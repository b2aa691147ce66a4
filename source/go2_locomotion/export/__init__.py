"""The Isaac Lab side of a deploy bundle: :mod:`.manifest` writes ``deploy.yaml`` from a live environment (the
export workflows call it), in the vocabulary of :mod:`go2_locomotion.robot.observations`."""
