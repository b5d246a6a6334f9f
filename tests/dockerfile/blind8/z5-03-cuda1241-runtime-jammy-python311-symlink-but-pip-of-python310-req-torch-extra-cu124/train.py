"""QLoRA fine-tuning entry point (reduced): config loading needs PyYAML, training needs torch."""
from src.config_loader import load_config


def main() -> None:
    cfg = load_config()
    from src.train_lora import run_train
    run_train(cfg)


if __name__ == "__main__":
    main()
