#!/usr/bin/env bash
# Multi-turn GRPO on Ray with veRL, the Turnwise `guess` collaborator as a veRL interaction.
#   MODEL: a merged Hugging Face folder (recipes/merge_adapter.py), or an export without adapter
#   DATA:  the output of recipes/verl/prepare_data.py
# For PPO with a critic: ADV=gae (adds critic.model.path=$MODEL). Written against verl 0.5.0 with
# the sglang rollout (examples/sglang_multiturn in the verl repository); not executed here.
#   BATCH (64), N (8 rollouts per prompt), GPUS (1): the batch is sized to the data by batch_sizes.py
#   (veRL's loader drops an incomplete batch, so a batch above the train tasks trains on nothing);
#   DRY_RUN=1 prints the veRL command instead of running it.
set -euo pipefail
MODEL=${MODEL:?set MODEL to a Hugging Face folder}
DATA=${DATA:-data/verl}
ADV=${ADV:-grpo}
GPUS=${GPUS:-1}
N=${N:-8}
HERE="$(cd "$(dirname "$0")" && pwd)"
export PYTHONPATH="$HERE:${PYTHONPATH:-}"   # makes turnwise_interaction importable by class_name

# TRAIN_BATCH, MINI_BATCH, MICRO_BATCH, MAX_TURNS from DATA/sizes.json; stops here when they cannot fit
sizes=$(python3 "$HERE/batch_sizes.py" --data "$DATA" --gpus "$GPUS" --n "$N" --batch "${BATCH:-64}" --micro 16)
eval "$sizes"

extra=()
if [ "$ADV" = gae ]; then extra+=(critic.model.path="$MODEL" critic.optim.lr=1e-5 critic.ppo_micro_batch_size_per_gpu="$MICRO_BATCH"); fi
run=()
if [ "${DRY_RUN:-0}" = 1 ]; then run=(echo); fi

"${run[@]}" python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator="$ADV" \
  algorithm.use_kl_in_reward=False \
  data.train_files="$DATA/train.parquet" \
  data.val_files="$DATA/test.parquet" \
  data.train_batch_size="$TRAIN_BATCH" \
  data.max_prompt_length=256 \
  data.max_response_length=512 \
  data.return_raw_chat=True \
  data.filter_overlong_prompts=True \
  data.truncation=error \
  actor_rollout_ref.model.path="$MODEL" \
  actor_rollout_ref.model.lora_rank=8 \
  actor_rollout_ref.model.lora_alpha=16 \
  actor_rollout_ref.model.target_modules=all-linear \
  actor_rollout_ref.actor.optim.lr=1e-4 \
  actor_rollout_ref.actor.ppo_mini_batch_size="$MINI_BATCH" \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu="$MICRO_BATCH" \
  actor_rollout_ref.actor.use_kl_loss=False \
  actor_rollout_ref.actor.clip_ratio_low=0.2 \
  actor_rollout_ref.actor.clip_ratio_high=0.28 \
  actor_rollout_ref.rollout.name=sglang \
  actor_rollout_ref.rollout.n="$N" \
  actor_rollout_ref.rollout.temperature=1.0 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.5 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16 \
  actor_rollout_ref.rollout.multi_turn.enable=True \
  actor_rollout_ref.rollout.multi_turn.max_assistant_turns="$MAX_TURNS" \
  actor_rollout_ref.rollout.multi_turn.max_user_turns="$MAX_TURNS" \
  actor_rollout_ref.rollout.multi_turn.interaction_config_path="$HERE/interaction_config.yaml" \
  custom_reward_function.path="$HERE/turnwise_reward.py" \
  custom_reward_function.name=compute_score \
  trainer.critic_warmup=0 \
  trainer.logger='["console"]' \
  trainer.project_name=turnwise \
  trainer.experiment_name="guess-$ADV" \
  trainer.n_gpus_per_node="$GPUS" \
  trainer.nnodes=1 \
  trainer.save_freq=50 \
  trainer.test_freq=10 \
  trainer.total_epochs="${EPOCHS:-20}" \
  "${extra[@]}" "$@"
