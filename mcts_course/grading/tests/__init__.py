"""The exercise checks a student's install carries: tests whose expectations are public facts."""
