# The TransE recipe of the default vocabularies (sourced, not run): every `ir2vec vocab train`
# option but the dimension, the triplets and the outputs, as an array for
#   "$ir2vec" vocab train TRIPLETS --dim D "${transe_recipe[@]}" -o OUT ...
# Used by scripts/train-default-vocab.sh (vocab/default/), scripts/train-default-mir-vocab.sh
# (mir/default/) and bench/devmap-vocabs.sh (the same recipe at other dimensions).
# L1, margin 4, Adam; early stopping on validation MRR; one training thread and fixed seeds,
# so the result is deterministic.
transe_recipe=(--epochs 1000 --seed 1 --margin 4 --lr 0.01 --batch-size 256 --distance l1
  --optimizer adam --corruption bernoulli --eval-every 10 --patience 10 --split-seed 1)
